import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionSearchResult } from '../src/shared/api/search-api';
import type { UsageReport } from '../src/shared/api/usage-api';
import { ContextStore } from '../src/core/store/context-store';
import { realFixture } from './support/real-fixtures';
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

  it('searches messages and reports usage on a PostgreSQL index as on tasks.db', async () => {
    const url = await cluster.createDatabase();
    const fixtures = [realFixture('claude-code'), realFixture('swe-agent')];
    const roots = {
      sqlite: path.join(tempDir(), 'local'),
      postgres: path.join(tempDir(), 'fleet'),
    };
    const cwb = (kind: keyof typeof roots, ...args: string[]) => {
      const index = kind === 'postgres' ? ['--index', url] : [];
      const run = runCwb(['--contexts', roots[kind], ...index, ...args], {
        CWB_HOST: 'box1',
        TZ: 'UTC',
      });
      expect(run.status, run.stderr).toBe(0);
      return run.stdout;
    };
    for (const kind of ['sqlite', 'postgres'] as const) cwb(kind, 'import', ...fixtures);
    const hits = (kind: keyof typeof roots, ...args: string[]) =>
      (JSON.parse(cwb(kind, 'search', ...args, '--json')) as SessionSearchResult).hits.map((h) => [
        h.title,
        h.seq,
        h.role,
        h.agent,
        h.snippet,
        h.match,
      ]);
    for (const args of [
      ['dataset', '--limit', '30'],
      ['pydicom/dataset.py', '--exact'],
      ['dataset', '--agent', 'swe-agent', '--limit', '50'],
      ['"currently open file"'],
      ['edit*', '--limit', '40'],
      ['the', '--role', 'user'],
    ]) {
      const onPostgres = hits('postgres', ...args);
      expect(onPostgres.length, args.join(' ')).toBeGreaterThan(0);
      expect(onPostgres, args.join(' ')).toEqual(hits('sqlite', ...args));
    }
    expect(cwb('postgres', 'search', 'dataset', '--limit', '3')).toMatch(/3 messages in \d+ tasks/);

    const usage = (kind: keyof typeof roots, by: string) => {
      const report = JSON.parse(cwb(kind, 'usage', '--by', by, '--json')) as UsageReport;
      return report.rows.map((r) => [r.key, r.tasks, r.tokens, Math.round(r.cost.usd * 100)]);
    };
    for (const by of ['day', 'model', 'agent']) {
      const onPostgres = usage('postgres', by);
      expect(onPostgres.length, by).toBeGreaterThan(0);
      expect(onPostgres, by).toEqual(usage('sqlite', by));
    }
    expect(cwb('postgres', 'usage', '--by', 'agent')).toMatch(/claude-code/);
  }, 300_000);
});
