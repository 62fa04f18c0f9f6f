import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskRow } from '../../shared/task-types';
import { startPostgres, type PostgresCluster } from '../../../test/support/postgres';
import { useTempDir } from '../../../test/support/temp-dir';
import type { HourUsage } from '../usage/usage-hours';
import { migrateIndex } from './index-migration';
import { openDatabase } from './open-database';
import { PgTaskRepository } from './pg-task-repository';
import { TaskRepository } from './task-repository';

const tempDir = useTempDir();
let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.stop());

function task(i: number): TaskRow {
  const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  return {
    uuid: `task-${String(i).padStart(5, '0')}`,
    status: i % 2 ? 'completed' : 'paused',
    title: `task ${i}`,
    prompt: `prompt ${i}`,
    created_at: at,
    updated_at: at,
    total_messages: i,
    input_tokens: i * 1000 + 7,
    total_tokens: i * 1500,
    tool_call_count: i % 13,
    control: i === 3 ? 'pause' : null,
  } as TaskRow;
}

describe('cwb index migrate: tasks.db → PostgreSQL', () => {
  it('copies every row with exact counters, and resumes after an interruption', async () => {
    const db = openDatabase(path.join(tempDir(), 'tasks.db'));
    const source = new TaskRepository(db);
    source.insertRows(Array.from({ length: 1234 }, (_, i) => task(i)));
    source.addStats('task-00005', { messages: 3, usage: { input_tokens: 11, output_tokens: 4 } });
    const target = new PgTaskRepository(await cluster.createDatabase(), { host: 'old-box' });

    // Interrupted after the first batch committed.
    expect(() =>
      migrateIndex(db, target, (copied) => {
        if (copied >= 500) throw new Error('killed');
      }),
    ).toThrow('killed');
    expect(target.query({ limit: 0 }).total).toBe(500);

    const report = migrateIndex(db, target);
    expect(report).toMatchObject({ rows: 1234, copied: 734, resumedFrom: 500, verified: true });
    expect(target.query({ limit: 0 }).total).toBe(1234);
    for (const uuid of ['task-00000', 'task-00005', 'task-00003', 'task-01233']) {
      const { ...copy } = target.require(uuid) as TaskRow & {
        host?: string;
        seq?: number;
        folder_id?: string | null;
      };
      expect(copy.host).toBe('old-box');
      // A repository opened without a contexts folder's id writes rows no folder claims yet.
      expect(copy.folder_id).toBeNull();
      delete copy.host;
      delete copy.seq;
      delete copy.folder_id;
      // tasks.db's host is its hostname; the fleet's is the host the copy was made for.
      const { host: sourceHost, ...original } = source.require(uuid);
      expect(sourceHost).toBe(original.hostname);
      expect(copy).toEqual(original);
    }
    // Same listing order, page by page.
    for (const q of [
      { sort: 'total_tokens' as const },
      { search: 'task 12', sort: 'title' as const },
    ]) {
      expect(target.query(q).rows.map((r) => r.uuid)).toEqual(
        source.query(q).rows.map((r) => r.uuid),
      );
    }

    // Copying again replaces rows with the source's values: nothing is counted twice.
    source.addStats('task-00007', { messages: 1 });
    target.sql('DELETE FROM index_migrations');
    expect(migrateIndex(db, target)).toMatchObject({ copied: 1234, verified: true });
    expect(target.require('task-00007').total_messages).toBe(8);
    target.close();
    db.close();
  });

  it("copies imported tasks' usage by hour (replacing it when run again), not our own tasks'", async () => {
    const db = openDatabase(path.join(tempDir(), 'tasks.db'));
    const source = new TaskRepository(db);
    source.insertRows([
      { ...task(1), agent: 'codex' },
      { ...task(2), agent: '' },
    ]);
    const hour = (h: string, n: number): HourUsage => ({
      hour: h,
      input_tokens: n,
      output_tokens: 2 * n,
      cache_read_tokens: 3 * n,
      cache_creation_tokens: 0,
    });
    source.addUsageHours('task-00001', [hour('2026-01-01T00', 5), hour('2026-01-02T13', 7)]);
    source.addUsageHours('task-00002', [hour('2026-01-01T00', 9)]);
    const target = new PgTaskRepository(await cluster.createDatabase(), { host: 'old-box' });
    const hours = () =>
      target.sql(
        `SELECT t.uuid, h.hour, h.input_tokens, h.output_tokens, h.cache_read_tokens
         FROM usage_hours h JOIN tasks t ON t.seq = h.task ORDER BY t.uuid, h.hour`,
      );
    const expected = [
      {
        uuid: 'task-00001',
        hour: '2026-01-01T00',
        input_tokens: 5,
        output_tokens: 10,
        cache_read_tokens: 15,
      },
      {
        uuid: 'task-00001',
        hour: '2026-01-02T13',
        input_tokens: 7,
        output_tokens: 14,
        cache_read_tokens: 21,
      },
    ];
    migrateIndex(db, target);
    expect(hours()).toEqual(expected);
    target.sql('DELETE FROM index_migrations');
    migrateIndex(db, target);
    expect(hours()).toEqual(expected);
    target.close();
    db.close();
  });
});
