import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresCluster } from '../../../test/support/postgres';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from './pg-schema';
import { PgTaskRepository } from './pg-task-repository';

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
});
