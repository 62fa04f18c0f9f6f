import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgTaskRepository } from '../db/pg-task-repository';
import { TaskRepository } from '../db/task-repository';
import { ContextStore } from '../store/context-store';
import { startPostgres, type PostgresCluster } from '../../../test/support/postgres';
import { importFile } from './import-file';
import { rederiveImports } from './rederive-imports';
import { useTempDir } from '../../../test/support/temp-dir';
import { realFixture } from '../../../test/support/real-fixtures';

const tempDir = useTempDir();
let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.stop());

/** What an earlier importer left, written straight into either index. */
function damage(store: ContextStore, set: string, uuid: string): void {
  const sql = `UPDATE tasks SET ${set} WHERE uuid = '${uuid}'`;
  if (store.repo instanceof TaskRepository) store.repo.db.prepare(sql).run();
  else if (store.repo instanceof PgTaskRepository) store.repo.sql(sql);
}

describe.each([
  ['tasks.db', async () => ''],
  ['PostgreSQL', async () => cluster.createDatabase()],
])('rederiveImports on %s', (_name, index) => {
  it('gives earlier imports the first real request as title and their text as tokens, once', async () => {
    const store = ContextStore.open(tempDir(), { index: await index() });
    try {
      const result = await importFile(
        store,
        realFixture('swe-agent', 'function_calling_simple.traj'),
      );
      const uuid = result.tasks[0]!.uuid;
      const estimate = store.requireTask(uuid).total_tokens;
      expect(estimate).toBeGreaterThan(0);
      // What the earlier importer left: a slash-command title and 0 tokens.
      damage(store, `title = '/clear', total_tokens = 0`, uuid);
      damage(store, 'git_branch = NULL', uuid);
      expect(await rederiveImports(store)).toEqual({
        checked: 1,
        titles: 1,
        tokens: 1,
        branches: 0,
        empty: [],
      });
      expect(store.requireTask(uuid).git_branch).toBe('');
      const row = store.requireTask(uuid);
      expect(row.total_tokens).toBe(estimate);
      expect(row.title).not.toMatch(/^\//);
      expect(row.title!.length).toBeGreaterThan(0);
      expect(await rederiveImports(store)).toEqual({
        checked: 0,
        titles: 0,
        tokens: 0,
        branches: 0,
        empty: [],
      });
      // What the importer that read Gemini sessions as OpenAI chat left: a task with nothing.
      damage(store, 'total_messages = 0', uuid);
      expect((await rederiveImports(store)).empty).toEqual([uuid]);
    } finally {
      store.close();
    }
  });
});
