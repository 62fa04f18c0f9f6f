import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresCluster } from '../../../test/support/postgres';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from './pg-schema';
import { PgTaskRepository } from './pg-task-repository';
import { pgMessageTarget } from './pg-message-index';

/** Upgrading a fleet's index that already holds tasks, on a real PostgreSQL. */
let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.stop());

async function run(url: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const text of statements) await client.query(text);
  } finally {
    await client.end();
  }
}

/** A database as version 3 left it, with tasks of two hosts and two agents. */
async function version3(): Promise<string> {
  const url = await cluster.createDatabase();
  const rows = Array.from(
    { length: 12 },
    (_, i) =>
      `('t${i}', '${i % 3 ? 'completed' : 'failed'}', 'Fix ${i % 2 ? 'flaky' : 'steady'} test ${i}',
        'prompt ${i}', '2026-01-0${1 + (i % 9)}T00:00:00Z', '2026-01-0${1 + (i % 9)}T00:00:00Z',
        '${i < 8 ? 'alpha' : 'beta'}', '${i % 4 ? '' : 'codex'}')`,
  );
  await run(url, [
    'BEGIN',
    'CREATE TABLE cwb_schema (version INTEGER NOT NULL)',
    ...PG_MIGRATIONS.slice(0, 3),
    'INSERT INTO cwb_schema (version) VALUES (3)',
    `INSERT INTO tasks (uuid, status, title, prompt, created_at, updated_at, host, agent)
     VALUES ${rows.join(', ')}`,
    'COMMIT',
  ]);
  return url;
}

describe('the PostgreSQL index schema', () => {
  it('upgrades a version 3 index in place: search, host and agent counts cover the tasks it had', async () => {
    const url = await version3();
    const index = new PgTaskRepository(url, { host: 'alpha' });
    expect(index.schemaVersion()).toBe(PG_SCHEMA_VERSION);
    expect(index.query({ search: 'FLAKY', limit: 100 }).rows.map((r) => r.uuid)).toEqual([
      't7',
      't5',
      't3',
      't11',
      't1',
      't9',
    ]);
    expect(index.query({ search: 'flaky', host: 'beta' }).total).toBe(2);
    expect(index.facetValues().hosts).toEqual([
      { value: 'alpha', count: 8 },
      { value: 'beta', count: 4 },
    ]);
    expect(index.facetValues().agents).toEqual([
      { value: '', count: 9 },
      { value: 'codex', count: 3 },
    ]);
    // The trigram indexes moved out of the tasks row: counter updates leave them alone.
    const indexes = index.sql<{ indexname: string }>(
      "SELECT indexname FROM pg_indexes WHERE tablename = 'tasks' AND indexdef LIKE '%gin%'",
    );
    expect(indexes).toEqual([]);
    index.close();
  });

  it('upgrades a version 5 dump to v6: every row kept, every task pending for its own folder', async () => {
    const url = await cluster.createDatabase();
    const dump = path.join(__dirname, '../../../test/fixtures/pg/fleet-v5.sql');
    await run(url, [fs.readFileSync(dump, 'utf8')]);
    const read = async (sql: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql)).rows;
      } finally {
        await client.end();
      }
    };
    const tasks = 'SELECT * FROM tasks ORDER BY seq';
    const folders = 'SELECT * FROM folders ORDER BY id';
    const before = { tasks: await read(tasks), folders: await read(folders) };
    expect(before.tasks).toHaveLength(12);
    expect(await read('SELECT version FROM cwb_schema')).toEqual([{ version: 5 }]);

    const started = performance.now();
    const folder = { id: 'f0000000-0000-4000-8000-00000000000b', root: '/srv/alpha/project' };
    const index = new PgTaskRepository(url, { host: 'alpha', folder });
    const migrationMs = performance.now() - started;
    expect(index.schemaVersion()).toBe(PG_SCHEMA_VERSION);
    expect(await read(tasks)).toEqual(before.tasks);
    expect(await read(folders)).toEqual(before.folders);
    // Every task is to index, and each folder indexes only the tasks it holds (issue 29).
    const target = pgMessageTarget(index);
    expect(target.pending()).toBe(12);
    const own = target.dirty(0, 100).map((t) => t.uuid);
    expect(own).toEqual(
      before.tasks.filter((t) => t.folder_id === folder.id).map((t) => t.uuid as string),
    );
    expect(own).toHaveLength(4);
    // Usage by hour goes to the task's row; a deleted task leaves nothing behind.
    const uuid = own[0]!;
    const hour = {
      hour: '2026-11-01T00',
      input_tokens: 5,
      output_tokens: 6,
      cache_read_tokens: 7,
      cache_creation_tokens: 8,
    };
    index.addUsageHours(uuid, [hour]);
    index.addUsageHours(uuid, [hour]);
    expect(index.sql('SELECT hour, input_tokens, cache_creation_tokens FROM usage_hours')).toEqual([
      { hour: '2026-11-01T00', input_tokens: 10, cache_creation_tokens: 16 },
    ]);
    index.write(() => index.delete(uuid));
    expect(index.sql('SELECT * FROM usage_hours')).toEqual([]);
    expect(target.pending()).toBe(11);
    index.close();
    // Informal: the upgrade of this small dump (docs/fleet.md).
    console.log(`v5 -> v6 migration of 12 tasks: ${migrationMs.toFixed(0)} ms (with connecting)`);
  });
});
