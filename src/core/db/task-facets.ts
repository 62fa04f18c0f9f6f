import type { FacetValue, TaskFacets } from '../../shared/api/tasks-api';
import { TASK_STATUSES, type TaskStatus } from '../../shared/task-types';
import type { Db } from './open-database';
import { taskWhere, type TaskFilter } from './task-filter';
import { searchIndexReady } from './task-search';

/** Distinct values listed per facet: enough for a picker, bounded for 100,000 tasks. */
export const MAX_FACET_VALUES = 200;

export type FacetValues = Pick<TaskFacets, 'repos' | 'users' | 'models' | 'agents' | 'hosts'>;

/**
 * Counts per status for the task table's filter chips, answered by SQLite. Every filter
 * applies except the status one, so each chip says what choosing it would show. With no
 * other filter (the first view) the counts are read from task_counts, kept by triggers.
 */
export function taskStatusCounts(db: Db, filter: TaskFilter): Record<TaskStatus, number> {
  const status = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
  const others: TaskFilter = { ...filter, status: undefined };
  const filtered = hasOtherFilters(filter);
  for (const row of filtered ? countByStatus(db, others) : countedStatuses(db)) {
    if (row.status in status) status[row.status] = row.n;
  }
  return status;
}

/** The filters besides status (a query also carries sort and paging, which count for nothing). */
const OTHER_FILTERS = [
  'repo',
  'user',
  'model',
  'agent',
  'host',
  'search',
  'createdFrom',
  'createdTo',
] as const;

/** Whether `filter` narrows the tasks by more than their status ('' is an agent: this app's). */
export function hasOtherFilters(filter: TaskFilter): boolean {
  return OTHER_FILTERS.some((key) =>
    key === 'agent' ? filter.agent !== undefined : Boolean(filter[key]),
  );
}

function countByStatus(db: Db, filter: TaskFilter): { status: TaskStatus; n: number }[] {
  const { sql, params } = taskWhere(filter, {
    searchIndex: filter.search !== undefined && searchIndexReady(db),
    hostIndex: true,
  });
  return db
    .prepare(`SELECT status, COUNT(*) AS n FROM tasks ${sql} GROUP BY status`)
    .all(params) as { status: TaskStatus; n: number }[];
}

function countedStatuses(db: Db): { status: TaskStatus; n: number }[] {
  return db.prepare("SELECT value AS status, n FROM task_counts WHERE facet = 'status'").all() as {
    status: TaskStatus;
    n: number;
  }[];
}

/** The distinct repositories, users, models and hosts of all tasks, most used first (from task_counts). */
export function taskFacetValues(db: Db, maxValues = MAX_FACET_VALUES): FacetValues {
  return {
    repos: distinct(db, 'repository', maxValues),
    users: distinct(db, 'user', maxValues),
    models: distinct(db, 'model', maxValues),
    agents: agentCounts(db),
    hosts: distinct(db, 'host', maxValues),
  };
}

/** How many tasks have this value of a kept facet (task_counts), 0 for none. */
export function keptCount(db: Db, facet: 'host', value: string): number {
  const row = db
    .prepare('SELECT n FROM task_counts WHERE facet = ? AND value = ?')
    .get(facet, value) as { n: number } | undefined;
  return row?.n ?? 0;
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
  // Two subqueries: SQLite answers a lone MAX from an index end, but MAX(a), MAX(b) in
  // one SELECT scans the whole table.
  const row = db
    .prepare('SELECT (SELECT MAX(rowid) FROM tasks) AS r, (SELECT MAX(updated_at) FROM tasks) AS u')
    .get() as {
    r: number | null;
    u: string | null;
  };
  return `${version}|${row.r ?? 0}|${row.u ?? ''}`;
}

function distinct(
  db: Db,
  facet: 'repository' | 'user' | 'model' | 'host',
  max: number,
): FacetValue[] {
  return db
    .prepare(
      `SELECT value, n AS count FROM task_counts WHERE facet = ? AND n > 0
       ORDER BY count DESC, value LIMIT ?`,
    )
    .all(facet, max) as FacetValue[];
}

/**
 * The agents with their task counts, '' (this app's own tasks) included: few values, read
 * off the agent index without the rows.
 */
function agentCounts(db: Db): FacetValue[] {
  return db
    .prepare(
      'SELECT agent AS value, COUNT(*) AS count FROM tasks GROUP BY agent ORDER BY count DESC, value LIMIT 50',
    )
    .all() as FacetValue[];
}
