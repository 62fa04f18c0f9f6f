import type { FacetValue, TaskFacets } from '../../shared/api/tasks-api';
import { TASK_STATUSES, type TaskStatus } from '../../shared/task-types';
import type { Db } from './open-database';
import { taskWhere, type TaskFilter } from './task-filter';
import { searchIndexReady } from './task-search';

/** Distinct values listed per facet: enough for a picker, bounded for 100,000 tasks. */
export const MAX_FACET_VALUES = 200;

export type FacetValues = Pick<TaskFacets, 'repos' | 'users' | 'models'>;

/**
 * Counts per status for the task table's filter chips, answered by SQLite. Every filter
 * applies except the status one, so each chip says what choosing it would show.
 */
export function taskStatusCounts(db: Db, filter: TaskFilter): Record<TaskStatus, number> {
  const { sql, params } = taskWhere(
    { ...filter, status: undefined },
    { searchIndex: filter.search !== undefined && searchIndexReady(db) },
  );
  const status = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
  const counted = db
    .prepare(`SELECT status, COUNT(*) AS n FROM tasks ${sql} GROUP BY status`)
    .all(params) as { status: TaskStatus; n: number }[];
  for (const row of counted) if (row.status in status) status[row.status] = row.n;
  return status;
}

/** The distinct repositories, users and models of all tasks, most used first. */
export function taskFacetValues(db: Db, maxValues = MAX_FACET_VALUES): FacetValues {
  return {
    repos: distinct(db, 'repository', maxValues),
    users: distinct(db, 'user', maxValues),
    models: distinct(db, 'model', maxValues),
  };
}

export function taskFacets(db: Db, filter: TaskFilter, maxValues = MAX_FACET_VALUES): TaskFacets {
  return { status: taskStatusCounts(db, filter), ...taskFacetValues(db, maxValues) };
}

/**
 * Changes whenever the tasks table may have: another connection committed (SQLite's
 * data_version), or this one added a row or touched one. Three O(1) or O(log n) reads,
 * where COUNT(*) would scan 100,000 rows.
 */
export function tasksTableStamp(db: Db): string {
  const version = db.pragma('data_version', { simple: true }) as number;
  const row = db.prepare('SELECT MAX(rowid) AS r, MAX(updated_at) AS u FROM tasks').get() as {
    r: number | null;
    u: string | null;
  };
  return `${version}|${row.r ?? 0}|${row.u ?? ''}`;
}

function distinct(db: Db, column: 'repository' | 'user' | 'model', max: number): FacetValue[] {
  return db
    .prepare(
      `SELECT ${column} AS value, COUNT(*) AS count FROM tasks
       WHERE ${column} IS NOT NULL AND ${column} <> ''
       GROUP BY ${column} ORDER BY count DESC, value LIMIT ?`,
    )
    .all(max) as FacetValue[];
}
