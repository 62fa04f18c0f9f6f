import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importFile } from './import-file';
import { rederiveImports } from './rederive-imports';
import { useTempDir } from '../../../test/support/temp-dir';
import { realFixture } from '../../../test/support/real-fixtures';

const tempDir = useTempDir();

describe('rederiveImports', () => {
  it('gives earlier imports the first real request as title and their text as tokens, once', async () => {
    const store = ContextStore.open(tempDir());
    try {
      const result = await importFile(
        store,
        realFixture('swe-agent', 'function_calling_simple.traj'),
      );
      const uuid = result.tasks[0]!.uuid;
      const estimate = store.requireTask(uuid).total_tokens;
      expect(estimate).toBeGreaterThan(0);
      // What the earlier importer left: a slash-command title and 0 tokens.
      store.db
        .prepare(`UPDATE tasks SET title = '/clear', total_tokens = 0 WHERE uuid = ?`)
        .run(uuid);
      store.db.prepare(`UPDATE tasks SET git_branch = NULL WHERE uuid = ?`).run(uuid);
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
      store.db.prepare(`UPDATE tasks SET total_messages = 0 WHERE uuid = ?`).run(uuid);
      expect((await rederiveImports(store)).empty).toEqual([uuid]);
    } finally {
      store.close();
    }
  });
});
