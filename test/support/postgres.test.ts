import fs from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresCluster } from './postgres';

describe('throwaway PostgreSQL cluster', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(() => cluster?.stop());

  it('serves a fresh database on 127.0.0.1 and removes everything on stop', async () => {
    const url = await cluster.createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ v: string }>(
      "SELECT current_setting('server_version') AS v",
    );
    await client.end();
    expect(rows[0]!.v).toMatch(/^15\./);

    const other = await startPostgres();
    expect(fs.existsSync(other.dir)).toBe(true);
    other.stop();
    expect(fs.existsSync(other.dir)).toBe(false);
    const gone = new pg.Client({ connectionString: other.url, connectionTimeoutMillis: 2000 });
    await expect(gone.connect()).rejects.toThrow(/ECONNREFUSED/);
  });
});
