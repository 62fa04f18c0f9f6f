import { TASK_STATUSES, type TaskStatus } from '../../shared/task-types';

/** The filters of the task table (everything but sort and paging). */
export interface TaskFilter {
  status?: TaskStatus[];
  repo?: string;
  user?: string;
  model?: string;
  search?: string;
  createdFrom?: string;
  createdTo?: string;
}

/**
 * The WHERE clause of a filter, with named parameters. Values are always bound, never
 * spliced into the SQL; `search` escapes LIKE's wildcards so a `%` in it is literal.
 */
export function taskWhere(q: TaskFilter): { sql: string; params: Record<string, unknown> } {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (q.status?.length) {
    const names = q.status.filter((s) => (TASK_STATUSES as readonly string[]).includes(s));
    where.push(`status IN (${names.map((_, i) => `@status${i}`).join(', ')})`);
    names.forEach((s, i) => (params[`status${i}`] = s));
  }
  if (q.repo) {
    where.push('(repo = @repo OR repository = @repo)');
    params.repo = q.repo;
  }
  if (q.user) {
    where.push('user = @user');
    params.user = q.user;
  }
  if (q.model) {
    where.push('model = @model');
    params.model = q.model;
  }
  if (q.search) {
    where.push(`(title LIKE @search ESCAPE '\\' OR prompt LIKE @search ESCAPE '\\')`);
    params.search = `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  }
  if (q.createdFrom) {
    where.push('created_at >= @createdFrom');
    params.createdFrom = q.createdFrom;
  }
  if (q.createdTo) {
    where.push('created_at <= @createdTo');
    params.createdTo = q.createdTo;
  }
  return { sql: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}
