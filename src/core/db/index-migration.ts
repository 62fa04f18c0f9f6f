import type { TaskRow } from '../../shared/task-types';
import type { Db } from './open-database';
import { FIGURE_COLUMNS } from './task-index';
import type { PgTaskRepository } from './pg-task-repository';
import type { HourUsage } from '../usage/usage-hours';

/** Rows copied per PostgreSQL transaction: an interruption loses at most one batch's work. */
const BATCH = 500;

/** The counters compared between source and copy once the copy is done (a row's figures but its final ones). */
const COUNTERS = FIGURE_COLUMNS.filter((c) => !c.startsWith('final_'));

export interface MigrationReport {
  source: string;
  target: string;
  host: string;
  /** Rows in tasks.db. */
  rows: number;
  /** Rows copied by this run (fewer than `rows` when it resumed an earlier one). */
  copied: number;
  resumedFrom: number;
  /** Source and copy agree: same uuids, every counter the same. */
  verified: boolean;
  mismatches: string[];
}

/**
 * Copies every row of tasks.db into a PostgreSQL task index, as rows of `target.host`
 * (the host whose contexts folder holds them). Batches go in rowid order, each with its
 * cursor in one transaction (table index_migrations), so a run that is interrupted
 * resumes after the last batch that committed; rows are upserted, so copying again
 * replaces a row with the source's values rather than adding to them. Ends by comparing
 * every row's counters with the source.
 */
export function migrateIndex(
  source: Db,
  target: PgTaskRepository,
  onProgress: (copied: number, total: number) => void = () => {},
): MigrationReport {
  const sourceName = source.name;
  target.sql(`CREATE TABLE IF NOT EXISTS index_migrations (
    source TEXT NOT NULL, host TEXT NOT NULL, last_rowid BIGINT NOT NULL,
    finished_at TIMESTAMPTZ, PRIMARY KEY (source, host))`);
  const cursor = target.sql<{ last_rowid: number }>(
    'SELECT last_rowid FROM index_migrations WHERE source = $1 AND host = $2',
    [sourceName, target.host],
  )[0];
  const resumedFrom = cursor?.last_rowid ?? 0;
  const { n: rows } = source.prepare('SELECT COUNT(*) AS n FROM tasks').get() as { n: number };
  const page = source.prepare(
    'SELECT rowid AS _rowid, * FROM tasks WHERE rowid > ? ORDER BY rowid LIMIT ?',
  );
  let last = resumedFrom;
  let copied = 0;
  for (;;) {
    const batch = page.all(last, BATCH) as (TaskRow & { _rowid: number })[];
    if (batch.length === 0) break;
    const upto = batch[batch.length - 1]!._rowid;
    target.write(() => {
      target.upsertRows(batch);
      copyImportedHours(source, target, batch);
      target.sql(
        `INSERT INTO index_migrations (source, host, last_rowid) VALUES ($1, $2, $3)
         ON CONFLICT (source, host) DO UPDATE SET last_rowid = EXCLUDED.last_rowid`,
        [sourceName, target.host, upto],
      );
    });
    last = upto;
    copied += batch.length;
    onProgress(copied, rows);
  }
  // Statistics and the visibility map now, so the first listings are as quick as later ones.
  if (copied > 0) target.afterBulkLoad();
  const mismatches = verify(source, target);
  if (mismatches.length === 0) {
    target.sql('UPDATE index_migrations SET finished_at = now() WHERE source = $1 AND host = $2', [
      sourceName,
      target.host,
    ]);
  }
  return {
    source: sourceName,
    target: target.location,
    host: target.host,
    rows,
    copied,
    resumedFrom,
    verified: mismatches.length === 0,
    mismatches,
  };
}

/** Every source row against its copy: present, and every counter equal. */
/**
 * The usage by hour an import or a sync recorded for the batch's imported tasks (usage_hours,
 * docs/search-and-usage.md), replacing what a copy before wrote. Our own tasks' hours are
 * left to the index's catch-up, which reads them from their messages again.
 */
function copyImportedHours(
  source: Db,
  target: PgTaskRepository,
  batch: readonly (TaskRow & { _rowid: number })[],
): void {
  const imported = batch.filter((row) => row.agent);
  if (imported.length === 0) return;
  target.sql(
    'DELETE FROM usage_hours WHERE task IN (SELECT seq FROM tasks WHERE uuid = ANY($1::text[]))',
    [imported.map((row) => row.uuid)],
  );
  const hoursOf = source.prepare(
    `SELECT hour, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens
     FROM usage_hours WHERE task = ? ORDER BY hour`,
  );
  for (const row of imported)
    target.addUsageHours(row.uuid, hoursOf.all(row._rowid) as HourUsage[]);
}

function verify(source: Db, target: PgTaskRepository): string[] {
  const mismatches: string[] = [];
  const columns = ['uuid', 'status', ...COUNTERS].join(', ');
  const page = source.prepare(
    `SELECT rowid AS _rowid, ${columns} FROM tasks WHERE rowid > ? ORDER BY rowid LIMIT ?`,
  );
  let last = 0;
  for (;;) {
    const batch = page.all(last, BATCH) as (Record<string, unknown> & { _rowid: number })[];
    if (batch.length === 0) break;
    last = batch[batch.length - 1]!._rowid;
    const copies = new Map(
      target
        .sql<Record<string, unknown>>(`SELECT ${columns} FROM tasks WHERE uuid = ANY($1::text[])`, [
          batch.map((r) => r.uuid),
        ])
        .map((r) => [r.uuid, r]),
    );
    for (const row of batch) {
      const copy = copies.get(row.uuid);
      if (!copy) {
        mismatches.push(`${String(row.uuid)}: missing`);
        continue;
      }
      for (const c of ['status', ...COUNTERS]) {
        if (copy[c] !== row[c]) {
          mismatches.push(`${String(row.uuid)}: ${c} ${String(row[c])} → ${String(copy[c])}`);
        }
      }
    }
    if (mismatches.length > 20) break;
  }
  return mismatches;
}
