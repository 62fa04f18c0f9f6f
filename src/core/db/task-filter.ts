import { TASK_STATUSES, type TaskStatus } from '../../shared/task-types';
import { likePattern, trigramQuery } from './task-search';

/** The filters of the task table (everything but sort and paging). */
export interface TaskFilter {
  status?: TaskStatus[];
  repo?: string;
  user?: string;
  model?: string;
  /** The agent that wrote the task (tasks.agent: claude-code, codex, …; '' = this app). */
  agent?: string;
  /** The host holding the task (TaskRow.host). */
  host?: string;
  search?: string;
  createdFrom?: string;
  createdTo?: string;
}

/**
 * Which index a search through the trigram index should be driven by (SQLite's planner
 * has no statistics here and often guesses wrong, so the query says it):
 * - 'search': the trigram candidates, each then read and checked (few candidates);
 * - 'filters': the repo, user or model index, the candidates only looked up per row;
 * - 'order': the sort column's index, walked in order until the page is full (many
 *   candidates, so a page comes after a few of the index's entries).
 */
export type SearchDriver = 'search' | 'filters' | 'order';

/** The driver for counting a filter that searches: its equality filters when it has any. */
export function searchDriver(q: TaskFilter): 'search' | 'filters' {
  return q.repo || q.user || q.model ? 'filters' : 'search';
}

/** Whether a search of `q` goes through the trigram index once the index is complete. */
export function usesSearchIndex(q: TaskFilter): boolean {
  return q.search !== undefined && trigramQuery(q.search) !== undefined;
}

/**
 * The WHERE clause of a filter, with named parameters. Values are always bound, never
 * spliced into the SQL; `search` escapes LIKE's wildcards so a `%` in it is literal.
 * With `searchIndex` (the trigram index is complete, see task-search.ts) a search first
 * narrows the rows through the index; LIKE still decides, so the matches are the same.
 * A leading `+` keeps SQLite from driving the query by that term's index.
 */
export function taskWhere(
  q: TaskFilter,
  options: { searchIndex?: boolean; driver?: SearchDriver; hostIndex?: boolean } = {},
): { sql: string; params: Record<string, unknown> } {
  const candidates =
    options.searchIndex && q.search !== undefined ? trigramQuery(q.search) : undefined;
  const driver = candidates === undefined ? undefined : (options.driver ?? searchDriver(q));
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (q.status?.length) {
    const names = q.status.filter((s) => (TASK_STATUSES as readonly string[]).includes(s));
    const noIndex = driver === 'search' || driver === 'filters' ? '+' : '';
    where.push(`${noIndex}status IN (${names.map((_, i) => `@status${i}`).join(', ')})`);
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
  if (q.agent !== undefined) {
    where.push('agent = @agent');
    params.agent = q.agent;
  }
  if (q.host) {
    // Few hosts, each with many tasks: unless the caller knows this host's are few
    // (`hostIndex`), walking the sort's index and checking each row's host fills a page
    // sooner than reading every task of the host through its index and sorting them.
    where.push(`${options.hostIndex && !driver ? '' : '+'}host = @host`);
    params.host = q.host;
  }
  if (q.search) {
    if (candidates !== undefined) {
      const noIndex = driver === 'search' ? '' : '+';
      where.push(
        `${noIndex}rowid IN (SELECT rowid FROM tasks_search WHERE tasks_search MATCH @trigrams)`,
      );
      params.trigrams = candidates;
    }
    where.push(`(title LIKE @search ESCAPE '\\' OR prompt LIKE @search ESCAPE '\\')`);
    params.search = likePattern(q.search);
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
