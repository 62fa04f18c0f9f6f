import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresCluster } from '../../../test/support/postgres';
import { sleepSync } from '../sleep-sync';
import { PgSyncClient } from './pg-sync-client';

/** The synchronous client against a real PostgreSQL. */
let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.stop());

describe('PgSyncClient', () => {
  it('never hands the late reply of a call that timed out to the next call', () => {
    const client = new PgSyncClient(cluster.url, 'test');
    try {
      expect(() => client.query("SELECT pg_sleep(0.3), 'late' AS answer", [], 50)).toThrow(
        /did not answer within 50 ms/,
      );
      // The late reply arrives meanwhile and waits in the port.
      sleepSync(600);
      expect(client.query("SELECT 'second' AS answer").rows).toEqual([{ answer: 'second' }]);
      expect(client.query('SELECT $1::int AS n', [3]).rows).toEqual([{ n: 3 }]);
    } finally {
      client.close();
    }
  });

  it('drops a late reply that arrives while the next call waits', () => {
    const client = new PgSyncClient(cluster.url, 'test');
    try {
      expect(() => client.query("SELECT pg_sleep(0.2), 'late' AS answer", [], 20)).toThrow(
        /did not answer/,
      );
      // Still running when the late one lands: the flag wakes it, the reply is not its own.
      expect(client.query("SELECT pg_sleep(0.5), 'mine' AS answer").rows).toEqual([
        { pg_sleep: '', answer: 'mine' },
      ]);
    } finally {
      client.close();
    }
  });
});
