import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { startPostgres, type PostgresCluster } from './support/postgres';
import { runCwb } from './support/run-ts';
import { useTempDir } from './support/temp-dir';

/** The built `cwb` moving a host onto a PostgreSQL index and checking it (docs/fleet.md). */
const tempDir = useTempDir();
let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.stop());

describe('cwb with a PostgreSQL task index', () => {
  it('migrates tasks.db, then lists, shows and checks the index through --index and $CWB_INDEX_URL', async () => {
    const root = path.join(tempDir(), 'contexts');
    const store = ContextStore.open(root);
    const task = store.createTask({ title: 'Fix login bug', key: { user: 'ann' } });
    task.addMessage({ role: 'user', content: 'Fix the login bug' });
    task.recordLlmCall({ input_tokens: 120, output_tokens: 30 });
    await task.complete();
    store.close();
    const url = await cluster.createDatabase();

    const migrate = runCwb(['--contexts', root, 'index', 'migrate', '--to', url, '--host', 'box1']);
    expect(migrate.stderr).toContain('copied 1 of 1 rows');
    expect(migrate.stdout).toContain('1 tasks of box1 in postgres://cwb@127.0.0.1');
    expect(migrate.stdout).toContain('every row and counter verified');
    expect(migrate.status).toBe(0);

    const env = { CWB_HOST: 'box1' };
    const list = runCwb(['--contexts', root, '--index', url, 'tasks', '--json'], env);
    expect(list.status).toBe(0);
    const { tasks } = JSON.parse(list.stdout) as { tasks: unknown[] };
    expect(tasks).toEqual([
      expect.objectContaining({ uuid: task.uuid, title: 'Fix login bug', total_tokens: 150 }),
    ]);
    const byHost = (host: string) =>
      JSON.parse(
        runCwb(['--contexts', root, '--index', url, 'tasks', '--json', '--host', host], env).stdout,
      ) as { total: number };
    expect(byHost('box1').total).toBe(1);
    expect(byHost('box2').total).toBe(0);

    const doctor = runCwb(['--contexts', root, 'doctor'], { ...env, CWB_INDEX_URL: url });
    expect(doctor.stdout).toMatch(
      /^ok\s+task index: PostgreSQL 15\.\d+.* at postgres:\/\/cwb@127\.0\.0\.1:\d+\/\w+ as cwb, schema v\d+, 1 tasks, this host box1/m,
    );
    // Every folder of every host, with its lease (this one marked).
    expect(doctor.stdout).toContain(`folders: box1: ${root} (this folder) alive, 1 tasks`);
    expect(doctor.stdout).toMatch(/^ok\s+recovery: the task index and the folders agree/m);
    // Re-deriving earlier imports goes through the index's interface, PostgreSQL too.
    expect(doctor.stdout).toMatch(/^ok\s+imports: nothing to re-derive/m);

    const bad = runCwb(['--contexts', root, '--index', 'mysql://x@y/z', 'tasks']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/index: expected a PostgreSQL URL like postgres:\/\/user@host\/db/);
  }, 180_000);
});
