import type Database from 'better-sqlite3';
import type { TaskFacets } from '../../shared/api/tasks-api';
import type { TaskKey, TaskRow, TaskStatus } from '../../shared/task-types';
import { searchDriver, taskWhere, usesSearchIndex, type TaskFilter } from './task-filter';
import { backfillSearchIndex, searchIndexReady, withSearchIndexDeferred } from './task-search';
import {
  keptCount,
  taskFacetValues,
  taskStatusCounts,
  tasksTableStamp,
  type FacetValues,
} from './task-facets';
import { writeTx, type Db } from './open-database';
import { prepared } from './prepared';
import {
  costSqlOf,
  type CostSum,
  type ImportFix,
  type ImportsToFix,
  type ImportedFacts,
  type ModelRate,
  CONTROL_ACTIONS,
  INSERTABLE_COLUMNS,
  SORTABLE_COLUMNS,
  type ControlAction,
  type NewTaskRow,
  type SortColumn,
  type StatIncrements,
  type FinalStats,
  FIGURE_COLUMNS,
  type FigureColumn,
  type RowCompletion,
  type TaskIndex,
  type TaskQuery,
  runTimes,
} from './task-index';
import { isoTimestamp } from '../iso-timestamp';
import { addUsageHoursOf, type HourUsage } from '../usage/usage-hours';
import { notFound } from '../errors';

// The shared types lived here before the PostgreSQL index; importers keep working.
export {
  CONTROL_ACTIONS,
  SORTABLE_COLUMNS,
  type ControlAction,
  type FinalStats,
  type NewTaskRow,
  type SortColumn,
  type StatIncrements,
  type TaskQuery,
};

/**
 * How long a listing may spend indexing tasks for search while the v3 backfill is
 * unfinished (search works meanwhile, through LIKE alone). Spread over the calls a UI
 * makes, it finishes without one long wait.
 */
const SEARCH_BACKFILL_PER_QUERY_MS = 50;

/**
 * A search is "dense" when it matches at least this many tasks per row to show (counting
 * the skipped ones): then one in a few entries of the sort index matches, and walking it
 * is cheaper than reading and sorting every match.
 */
const DENSE_MATCHES_PER_PAGE_ROW = 8;

/** Figures a new row has none of until its task ends (the others start at 0). */
const NULL_FIGURES = new Set<FigureColumn>(['final_token_count', 'final_message_count']);

/** addStats' increments and the counter columns each one adds to. */
const STAT_COLUMNS = [
  ['llm', ['llm_call_count']],
  ['tool', ['tool_call_count', 'total_tool_calls']],
  ['comp', ['compression_count']],
  ['summaries', ['total_summaries']],
  ['messages', ['total_messages']],
  ['input', ['input_tokens']],
  ['output', ['output_tokens']],
  ['cacheCreation', ['cache_creation_tokens']],
  ['cacheRead', ['cache_read_tokens']],
  ['total', ['total_tokens']],
] as const;

/** Every read and write of tasks.db's tasks table. One instance per process, over one connection. */
export class TaskRepository implements TaskIndex {
  readonly kind = 'sqlite' as const;
  private searchReady = false;
  private readonly addStatsStatements = new Map<string, Database.Statement>();

  constructor(readonly db: Db) {}

  get location(): string {
    return this.db.name;
  }

  insert(row: NewTaskRow): void {
    this.insertComplete(row);
  }

  /**
   * A new row with the columns that would otherwise be updated right after it (`completion`:
   * a history task the sources' sync publishes with its commit). Each update after an insert
   * rewrote the index entries of every column it set, and the tasks table has more than
   * twenty indexes.
   */
  insertComplete(row: NewTaskRow, completion?: RowCompletion): void {
    const now = row.created_at ?? isoTimestamp();
    const figures = completion?.figures ?? {};
    this.write(() =>
      prepared(
        this.db,
        `INSERT INTO tasks (uuid, status, title, prompt, workdir, parent_uuid,
           task_source, owner, repo, task_type, task_id, user,
           created_at, started_at, completed_at, updated_at, process_id, hostname,
           llm_provider, model, context_length, metadata, agent, git_branch,
           ${FIGURE_COLUMNS.join(', ')})
         VALUES (@uuid, @status, @title, @prompt, @workdir, @parent_uuid,
           @task_source, @owner, @repo, @task_type, @task_id, @user,
           @created_at, @started_at, @completed_at, @updated_at, @process_id, @hostname,
           @llm_provider, @model, @context_length, @metadata, @agent, @git_branch,
           ${FIGURE_COLUMNS.map((c) => `@${c}`).join(', ')})`,
      ).run({
        uuid: row.uuid,
        status: row.status ?? 'running',
        title: row.title ?? null,
        prompt: row.prompt ?? null,
        workdir: row.workdir ?? null,
        parent_uuid: row.parent_uuid ?? null,
        ...row.key,
        created_at: now,
        ...runTimes(row, now),
        updated_at: completion?.updated_at ?? now,
        process_id: row.process_id ?? null,
        hostname: row.hostname ?? null,
        llm_provider: row.llm_provider ?? null,
        model: row.model ?? null,
        context_length: row.context_length ?? null,
        metadata: row.metadata === undefined ? null : JSON.stringify(row.metadata),
        agent: completion?.agent ?? '',
        git_branch: completion?.git_branch ?? null,
        ...Object.fromEntries(
          FIGURE_COLUMNS.map((c) => [c, figures[c] ?? (NULL_FIGURES.has(c) ? null : 0)]),
        ),
      }),
    );
  }

  /** Inserts a complete row as it was recorded elsewhere (restoring an archive). */
  insertRow(row: TaskRow): void {
    const columns = INSERTABLE_COLUMNS.filter((c) => row[c] !== undefined);
    this.write(() =>
      this.db
        .prepare(
          `INSERT INTO tasks (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
        )
        .run(Object.fromEntries(columns.map((c) => [c, row[c]]))),
    );
  }

  /**
   * Many rows at once (a bulk import, generated data): one transaction, and their search
   * index built afterwards by the backfill instead of row by row under the write lock.
   */
  insertRows(rows: Iterable<TaskRow>): void {
    withSearchIndexDeferred(this.db, () => {
      for (const row of rows) this.insertRow(row);
    });
  }

  get(uuid: string): TaskRow | undefined {
    return prepared(this.db, 'SELECT * FROM tasks WHERE uuid = ?').get(uuid) as TaskRow | undefined;
  }

  require(uuid: string): TaskRow {
    const row = this.get(uuid);
    if (!row) throw notFound(`no task with id ${uuid}`);
    return row;
  }

  /** seed 001 update_status: status, error message, completed_at and updated_at together. */
  setStatus(
    uuid: string,
    status: TaskStatus,
    extra: {
      error_message?: string | null;
      process_id?: number | null;
      hostname?: string | null;
    } = {},
  ): void {
    const now = isoTimestamp();
    const ended = status === 'completed' || status === 'failed';
    const info = this.write(() =>
      prepared(
        this.db,
        `UPDATE tasks SET status = @status, updated_at = @now,
           completed_at = CASE WHEN @ended THEN @now ELSE NULL END,
           started_at = CASE WHEN @status = 'running' THEN @now ELSE started_at END,
           error_message = CASE WHEN @hasError THEN @error ELSE (CASE WHEN @status = 'running' THEN NULL ELSE error_message END) END,
           process_id = CASE WHEN @hasPid THEN @pid ELSE process_id END,
           hostname = CASE WHEN @hasPid THEN @host ELSE hostname END
         WHERE uuid = @uuid`,
      ).run({
        uuid,
        status,
        now,
        ended: ended ? 1 : 0,
        hasError: extra.error_message !== undefined ? 1 : 0,
        error: extra.error_message ?? null,
        hasPid: extra.process_id !== undefined ? 1 : 0,
        pid: extra.process_id ?? null,
        host: extra.hostname ?? null,
      }),
    );
    if (info.changes === 0) throw notFound(`no task with id ${uuid}`);
  }

  /**
   * seed 000 update_statistics: counters only ever grow, in one statement. Only the
   * counters this event changes are set: SQLite updates an index whenever its column is
   * assigned, even to the same value, and most counters are indexed for sorting.
   */
  addStats(uuid: string, inc: StatIncrements): void {
    const u = inc.usage ?? {};
    const values: Record<string, number> = {
      llm: inc.llm_calls ?? 0,
      tool: inc.tool_calls ?? 0,
      comp: inc.compressions ?? 0,
      summaries: inc.summaries ?? 0,
      messages: inc.messages ?? 0,
      input: u.input_tokens ?? 0,
      output: u.output_tokens ?? 0,
      cacheCreation: u.cache_creation_tokens ?? 0,
      cacheRead: u.cache_read_tokens ?? 0,
      total: u.total_tokens ?? (u.input_tokens ?? 0) + (u.output_tokens ?? 0),
    };
    const changed = STAT_COLUMNS.filter(([name]) => values[name] !== 0);
    const key = changed.map(([name]) => name).join(',');
    let statement = this.addStatsStatements.get(key);
    if (!statement) {
      const sets = changed.flatMap(([name, columns]) =>
        columns.map((c) => `${c} = ${c} + @${name}`),
      );
      statement = this.db.prepare(
        `UPDATE tasks SET ${[...sets, 'updated_at = @now'].join(', ')} WHERE uuid = @uuid`,
      );
      this.addStatsStatements.set(key, statement);
    }
    const params: Record<string, unknown> = { uuid, now: isoTimestamp() };
    for (const [name] of changed) params[name] = values[name];
    this.write(() => statement.run(params));
  }

  /**
   * Sets the figures the task's files can tell. Both seeds' counters of tool calls
   * (tool_call_count, total_tool_calls: lines of tools.jsonl) and of compactions
   * (compression_count, total_summaries: lines of summaries.jsonl) take the files' counts,
   * which corrects an increment lost to a crash between a record line and its update.
   */
  setFinalStats(uuid: string, stats: FinalStats): void {
    this.write(() =>
      prepared(
        this.db,
        `UPDATE tasks SET total_messages = @total_messages, total_summaries = @total_summaries,
           total_tool_calls = @total_tool_calls, tool_call_count = @total_tool_calls,
           compression_count = @total_summaries, final_token_count = @final_token_count,
           final_message_count = @final_message_count, updated_at = @now
         WHERE uuid = @uuid`,
      ).run({ uuid, ...stats, now: isoTimestamp() }),
    );
  }

  /** Replaces the metadata JSON of a row (e.g. the run settings a resume overrode). */
  setMetadata(uuid: string, metadata: unknown): void {
    this.write(() =>
      this.db
        .prepare(`UPDATE tasks SET metadata = ?, updated_at = ? WHERE uuid = ?`)
        .run(JSON.stringify(metadata), isoTimestamp(), uuid),
    );
  }

  setImportedFacts(uuid: string, facts: ImportedFacts): void {
    this.write(() =>
      this.db
        .prepare(
          `UPDATE tasks SET created_at = COALESCE(@created_at, created_at),
             started_at = COALESCE(@started_at, @created_at, started_at),
             completed_at = COALESCE(@completed_at, completed_at),
             updated_at = COALESCE(@completed_at, @created_at, updated_at),
             model = COALESCE(model, @model),
             agent = @agent,
             git_branch = @git_branch
           WHERE uuid = @uuid`,
        )
        .run({ ...facts, uuid }),
    );
  }

  importsToFix(): ImportsToFix {
    const uuids = (sql: string) =>
      (this.db.prepare(sql).all() as { uuid: string }[]).map((r) => r.uuid);
    return {
      wrongTitleOrTokens: this.db
        .prepare(
          `SELECT uuid, status, title, total_tokens FROM tasks
           WHERE agent <> '' AND status IN ('completed', 'failed')
             AND (total_tokens = 0 OR title IS NULL OR title LIKE '/%' OR title LIKE '<%' OR title LIKE 'Caveat:%')`,
        )
        .all() as ImportsToFix['wrongTitleOrTokens'],
      noBranch: uuids(`SELECT uuid FROM tasks WHERE agent <> '' AND git_branch IS NULL`),
      empty: uuids(
        `SELECT uuid FROM tasks WHERE agent <> '' AND total_messages = 0 ORDER BY created_at`,
      ),
    };
  }

  fixImport(uuid: string, fix: ImportFix): void {
    this.write(() =>
      this.db
        .prepare(
          `UPDATE tasks SET title = COALESCE(@title, title),
             total_tokens = COALESCE(@total_tokens, total_tokens),
             git_branch = COALESCE(@git_branch, git_branch)
           WHERE uuid = @uuid`,
        )
        .run({
          title: fix.title ?? null,
          total_tokens: fix.total_tokens ?? null,
          git_branch: fix.git_branch ?? null,
          uuid,
        }),
    );
  }

  /** Asks the process running a task to pause, stop or compact (see TaskControl). */
  requestControl(uuid: string, action: ControlAction): void {
    const info = this.write(() =>
      this.db
        .prepare(`UPDATE tasks SET control = ?, updated_at = ? WHERE uuid = ?`)
        .run(action, isoTimestamp(), uuid),
    );
    if (info.changes === 0) throw notFound(`no task with id ${uuid}`);
  }

  /** Reads and clears the pending request, in one transaction so a request is acted on once. */
  takeControl(uuid: string): ControlAction | null {
    return this.write(() => {
      const row = this.db.prepare('SELECT control FROM tasks WHERE uuid = ?').get(uuid) as
        { control: string | null } | undefined;
      const action = row?.control ?? null;
      if (action !== null)
        this.db.prepare('UPDATE tasks SET control = NULL WHERE uuid = ?').run(uuid);
      return CONTROL_ACTIONS.includes(action as ControlAction) ? (action as ControlAction) : null;
    });
  }

  addUsageHours(uuid: string, hours: readonly HourUsage[]): void {
    addUsageHoursOf(this.db, uuid, hours);
  }

  delete(uuid: string): void {
    this.write(() => this.db.prepare('DELETE FROM tasks WHERE uuid = ?').run(uuid));
  }

  /** Every write goes through here: one BEGIN IMMEDIATE transaction (a savepoint when nested). */
  write<T>(fn: () => T): T {
    return writeTx(this.db, fn);
  }

  /** uuid → status of every task; used to reconcile the table with the folders. */
  allStatuses(): Map<
    string,
    { status: TaskStatus; process_id: number | null; hostname: string | null }
  > {
    const rows = this.db.prepare('SELECT uuid, status, process_id, hostname FROM tasks').all() as {
      uuid: string;
      status: TaskStatus;
      process_id: number | null;
      hostname: string | null;
    }[];
    return new Map(
      rows.map((r) => [
        r.uuid,
        { status: r.status, process_id: r.process_id, hostname: r.hostname },
      ]),
    );
  }

  /**
   * Paged, sorted, filtered listing: every filter is answered by SQLite, never in memory.
   * Ties break on rowid (every index ends with it), so sorting walks the column's index.
   * The page is a deferred join: the inner query picks the page's rowids from the index
   * alone, stepping over OFFSET index entries rather than whole rows, and only the page's
   * rows are read. The total is counted only when the page does not already tell it.
   */
  query(q: TaskQuery = {}): { rows: TaskRow[]; total: number } {
    const named: SortColumn =
      q.sort && (SORTABLE_COLUMNS as readonly string[]).includes(q.sort) ? q.sort : 'created_at';
    // Cost has no column: its expression is evaluated per matching row, unknown costs (NULL)
    // last when descending.
    const extra: Record<string, unknown> = {};
    const byCost = named === 'cost' && q.costRates !== undefined;
    const sort = byCost
      ? costSqlOf(q.costRates!, namedBinder(extra, 'cost'))
      : named === 'cost'
        ? 'created_at'
        : named;
    const outerSort = byCost ? sort : `t.${sort}`;
    const order = q.order === 'asc' ? 'ASC' : 'DESC';
    const limit = Math.max(0, Math.min(q.limit ?? 100, 10_000));
    const offset = Math.max(0, q.offset ?? 0);
    const page = (where: { sql: string; params: Record<string, unknown> }): TaskRow[] =>
      this.db
        .prepare(
          `SELECT t.* FROM
             (SELECT rowid AS r FROM tasks ${where.sql}
              ORDER BY ${sort} ${order}, rowid ${order} LIMIT ${limit} OFFSET ${offset}) AS page
           CROSS JOIN tasks AS t ON t.rowid = page.r
           ORDER BY ${outerSort} ${order}, t.rowid ${order}`,
        )
        .all({ ...where.params, ...extra }) as TaskRow[];
    const count = (where: { sql: string; params: Record<string, unknown> }): number =>
      (
        this.db.prepare(`SELECT COUNT(*) AS n FROM tasks ${where.sql}`).get(where.params) as {
          n: number;
        }
      ).n;

    const searchIndex = this.searchIndexReady();
    if (!(searchIndex && usesSearchIndex(q))) {
      // A host's tasks are few only in a fleet's copy of tasks.db: then its index finds them.
      const hostIndex =
        q.host !== undefined &&
        keptCount(this.db, 'host', q.host) < DENSE_MATCHES_PER_PAGE_ROW * (offset + limit);
      const rows = page(taskWhere(q, { hostIndex }));
      // A page short of the limit is the last one: it ends the list, so it gives the total
      // (unless it is empty past the start, where the end may lie anywhere before).
      if (rows.length < limit && (rows.length > 0 || offset === 0)) {
        return { rows, total: offset + rows.length };
      }
      return { rows, total: count(taskWhere(q, { hostIndex: true })) };
    }
    // Every trigram candidate must be read to be checked by LIKE, so the count comes first
    // (it reads them all anyway) and tells how the page is best found.
    const driver = searchDriver(q);
    const total = count(taskWhere(q, { searchIndex, driver }));
    if (offset >= total) return { rows: [], total };
    // Many matches: walking the sort index fills the page after a few of its entries.
    const pageDriver =
      driver === 'search' && total >= DENSE_MATCHES_PER_PAGE_ROW * (offset + limit)
        ? 'order'
        : driver;
    return { rows: page(taskWhere(q, { searchIndex, driver: pageDriver })), total };
  }

  /**
   * Whether search can use the trigram index. While the v3 backfill is unfinished, a
   * writable connection does a bounded share of it first.
   */
  searchIndexReady(): boolean {
    if (this.searchReady) return true;
    this.searchReady = this.db.readonly
      ? searchIndexReady(this.db)
      : backfillSearchIndex(this.db, SEARCH_BACKFILL_PER_QUERY_MS);
    return this.searchReady;
  }

  distinctModels(): (string | null)[] {
    return (
      this.db.prepare('SELECT DISTINCT model FROM tasks').all() as { model: string | null }[]
    ).map((r) => r.model);
  }

  sumCost(filter: TaskFilter, rates: readonly ModelRate[]): CostSum {
    const where = taskWhere(filter);
    const params: Record<string, unknown> = { ...where.params };
    const expr = costSqlOf(rates, namedBinder(params, 'cost'));
    return this.db
      .prepare(
        `SELECT TOTAL(v) AS usd, COUNT(*) - COUNT(v) AS unknown, COUNT(*) AS tasks
           FROM (SELECT ${expr} AS v FROM tasks ${where.sql})`,
      )
      .get(params) as CostSum;
  }

  /** Completed or failed tasks that ended before `cutoff` (ISO): the cleanup candidates. */
  endedBefore(cutoff: string): TaskRow[] {
    return this.db
      .prepare(
        `SELECT * FROM tasks WHERE status IN ('completed', 'failed') AND completed_at < ? ORDER BY completed_at`,
      )
      .all(cutoff) as TaskRow[];
  }

  /** The newest ended task with the same key, within the window (seed 001 §8.2). */
  findPreviousByKey(key: TaskKey, since: string, excludeUuid?: string): TaskRow | undefined {
    return this.db
      .prepare(
        `SELECT * FROM tasks WHERE task_source = @task_source AND owner = @owner AND repo = @repo
           AND task_type = @task_type AND task_id = @task_id AND IFNULL(user, '') = @user
           AND status IN ('completed', 'failed') AND completed_at >= @since AND uuid <> @exclude
         ORDER BY completed_at DESC LIMIT 1`,
      )
      .get({ ...key, since, exclude: excludeUuid ?? '' }) as TaskRow | undefined;
  }

  statusCounts(filter: TaskFilter): TaskFacets['status'] {
    return taskStatusCounts(this.db, filter);
  }

  facetValues(maxValues?: number): FacetValues {
    return taskFacetValues(this.db, maxValues);
  }

  stamp(): string {
    return tasksTableStamp(this.db);
  }

  close(): void {
    this.db.close();
  }
}

/** A binder for costSqlOf that adds each value to `params` under a fresh @name. */
function namedBinder(params: Record<string, unknown>, prefix: string): (value: unknown) => string {
  let n = 0;
  return (value) => {
    const name = `${prefix}${n++}`;
    params[name] = value;
    return `@${name}`;
  };
}
