import type { FacetValue, TaskFacets } from '../../shared/api/tasks-api';
import { TASK_STATUSES, type TaskStatus } from '../../shared/task-types';
import type { Db } from './open-database';
import { taskWhere, type TaskFilter } from './task-filter';

/** Distinct values listed per facet: enough for a picker, bounded for 100,000 tasks. */
export const MAX_FACET_VALUES = 200;

/**
 * Counts for the task table's filter controls, answered by SQLite. Status counts apply
 * every filter except the status one, so each status chip says what choosing it shows.
 */
export function taskFacets(db: Db, filter: TaskFilter, maxValues = MAX_FACET_VALUES): TaskFacets {
  const { sql, params } = taskWhere({ ...filter, status: undefined });
  const status = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
  const counted = db
    .prepare(`SELECT status, COUNT(*) AS n FROM tasks ${sql} GROUP BY status`)
    .all(params) as { status: TaskStatus; n: number }[];
  for (const row of counted) if (row.status in status) status[row.status] = row.n;
  return {
    status,
    repos: distinct(db, 'repository', maxValues),
    users: distinct(db, 'user', maxValues),
    models: distinct(db, 'model', maxValues),
  };
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
