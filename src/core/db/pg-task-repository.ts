import os from 'node:os';
import type { TaskFacets } from '../../shared/api/tasks-api';
import {
  TASK_STATUSES,
  type TaskKey,
  type TaskRow,
  type TaskStatus,
} from '../../shared/task-types';
import { CwbError, notFound } from '../errors';
import { sleepSync } from '../sleep-sync';
import { PgError, PgSyncClient, redactUrl, type PgSyncOptions } from './pg-sync-client';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from './pg-schema';
import { MAX_FACET_VALUES, hasOtherFilters, type FacetValues } from './task-facets';
import type { TaskFilter } from './task-filter';
import {
  costSqlOf,
  type CostSum,
  type ImportFix,
  type ImportsToFix,
  type ImportedFacts,
  type ModelRate,
  CONTROL_ACTIONS,
  INSERTABLE_COLUMNS,
  pageOf,
  statIncrements,
  type ControlAction,
  type FinalStats,
  type NewTaskRow,
  type StatIncrements,
  type StatusExtra,
  type TaskIndex,
  type TaskOwner,
  type TaskQuery,
  runTimes,
} from './task-index';
import { isoTimestamp } from '../iso-timestamp';
import type { HourUsage } from '../usage/usage-hours';
import { likePattern } from './task-search';

/**
 * Locks every `write` of every process on every host takes first (transaction-scoped
 * advisory locks), so a write transaction is as exclusive as SQLite's BEGIN IMMEDIATE:
 * reconcile and the folder moves rely on it. Single statements (counters, status) take
 * none: PostgreSQL makes each atomic on its own.
 */
const WRITE_LOCK = 0x637762_01; // 'cwb' 1
const MIGRATE_LOCK = 0x637762_02;
const FOLD_LOCK = 0x637762_03;

/**
 * How long a schema upgrade may run, and another host wait for it, before giving up: v4
 * copies and indexes every task's text (about a minute at 100,000 tasks on a busy server).
 */
const MIGRATE_TIMEOUT_MS = 30 * 60_000;

/** Delta rows in task_counts beyond two per value before a read folds them. */
const FOLD_AFTER = 1000;

/** The counters addStats adds to (statIncrements' columns): all setCounters may set. */
const COUNTER_COLUMNS: ReadonlySet<string> = new Set([
  'llm_call_count',
  'tool_call_count',
  'total_tool_calls',
  'compression_count',
  'total_summaries',
  'total_messages',
  'input_tokens',
  'output_tokens',
  'cache_creation_tokens',
  'cache_read_tokens',
  'total_tokens',
]);

/** Rows per INSERT statement in a bulk insert. */
const BULK_ROWS = 500;

/** Rows inserted at once from which insertRows vacuums and analyzes (afterBulkLoad). */
const BULK_LOAD_ROWS = 10_000;

export interface PgTaskIndexOptions extends PgSyncOptions {
  /** This host's name in the fleet (default os.hostname()). */
  host?: string;
  /**
   * The contexts folder this index serves (folder-identity.ts): rows it writes carry its
   * id, and only its rows are its own (allStatuses, importsToFix, its lease). Without
   * one (tools such as doctor), the host's rows of no folder are.
   */
  folder?: { id: string; root: string };
  /**
   * How long a task's own writes (counters, status, metadata, control, the start of a
   * write transaction) wait for an unreachable server, retrying, before they fail
   * (default 0: fail at once; task processes wait, see waitForIndexInThisProcess).
   */
  waitWhileDownMs?: number;
  /** Told once per outage that a write is waiting for the server. */
  onWaiting?: (message: string) => void;
}

let processWaitMs = 0;

/**
 * Makes every PostgreSQL index this process opens wait up to `ms` for a server that went
 * away, retrying, instead of failing the write: a task process pauses in place, its files
 * kept, and goes on when the database is back (docs/fleet.md). Interactive processes
 * (the app, `cwb serve`) keep failing at once with the error.
 */
export function waitForIndexInThisProcess(ms: number): void {
  processWaitMs = ms;
}

/** A contexts folder of the fleet and its lease (pg-schema.ts v5). */
export interface FolderLease {
  id: string;
  host: string;
  contexts_root: string;
  last_seen: string;
  lease_expires: string;
  alive: boolean;
  /** Rows whose task folders it holds. */
  tasks: number;
}

export interface HostLease {
  name: string;
  contexts_root: string | null;
  last_seen: string;
  lease_expires: string;
  alive: boolean;
}

/** Bound parameters, numbered as they are added. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
  /** The same values, to add more to without changing these. */
  copy(): Params {
    const copy = new Params();
    copy.values.push(...this.values);
    return copy;
  }
}

/** NULL lowest, as SQLite sorts it: first ascending, last descending. */
function nullsOf(order: 'ASC' | 'DESC'): string {
  return order === 'ASC' ? 'NULLS FIRST' : 'NULLS LAST';
}

/** The task index on PostgreSQL (docs/fleet.md): the same interface and answers as tasks.db. */
export class PgTaskRepository implements TaskIndex {
  readonly kind = 'postgres' as const;
  readonly location: string;
  readonly host: string;
  /** The id of the contexts folder this index serves, if any (PgTaskIndexOptions.folder). */
  readonly folderId: string | null;
  private readonly client: PgSyncClient;
  private depth = 0;
  private readonly waitMs: number;
  private readonly onWaiting: (message: string) => void;

  constructor(url: string, options: PgTaskIndexOptions = {}) {
    this.location = redactUrl(url);
    this.host = options.host ?? os.hostname();
    this.folderId = options.folder?.id ?? null;
    this.client = new PgSyncClient(url, this.location, options);
    this.waitMs = options.waitWhileDownMs ?? processWaitMs;
    this.onWaiting = options.onWaiting ?? ((message) => process.stderr.write(`cwb: ${message}\n`));
    try {
      this.migrate();
    } catch (err) {
      this.client.close();
      throw err;
    }
  }

  /** Runs SQL (for tools and tests: doctor, migrate). */
  sql<Row = Record<string, unknown>>(sql: string, params: unknown[] = []): Row[] {
    return this.q<Row>(sql, params).rows;
  }

  insert(row: NewTaskRow): void {
    const now = row.created_at ?? isoTimestamp();
    const status = row.status ?? 'running';
    this.q(
      `INSERT INTO tasks (uuid, status, title, prompt, workdir, parent_uuid,
         task_source, owner, repo, task_type, task_id, "user",
         created_at, started_at, updated_at, process_id, hostname,
         llm_provider, model, context_length, metadata, host, folder_id, completed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $13, $15, $16, $17, $18, $19, $20, $21, $22, $23)`,
      [
        row.uuid,
        status,
        row.title ?? null,
        row.prompt ?? null,
        row.workdir ?? null,
        row.parent_uuid ?? null,
        row.key.task_source,
        row.key.owner,
        row.key.repo,
        row.key.task_type,
        row.key.task_id,
        row.key.user,
        now,
        runTimes(row, now).started_at,
        row.process_id ?? null,
        row.hostname ?? null,
        row.llm_provider ?? null,
        row.model ?? null,
        row.context_length ?? null,
        row.metadata === undefined ? null : JSON.stringify(row.metadata),
        this.host,
        this.folderId,
        runTimes(row, now).completed_at,
      ],
    );
  }

  insertRow(row: TaskRow): void {
    this.insertBatch([row]);
  }

  insertRows(rows: Iterable<TaskRow>): void {
    let inserted = 0;
    this.write(() => {
      let batch: TaskRow[] = [];
      for (const row of rows) {
        batch.push(row);
        if (batch.length >= BULK_ROWS) {
          this.insertBatch(batch);
          inserted += batch.length;
          batch = [];
        }
      }
      if (batch.length) this.insertBatch(batch);
      inserted += batch.length;
    });
    if (inserted >= BULK_LOAD_ROWS && this.depth === 0) this.afterBulkLoad();
  }

  /**
   * After many rows went in at once: statistics for the planner, and the visibility map
   * that lets deep pages and counts read the indexes alone (index-only scans). Autovacuum
   * would get there within a minute or so; a listing right after a bulk load should not
   * wait for it. VACUUM cannot run inside a transaction, so only outside `write`.
   */
  afterBulkLoad(): void {
    this.q('VACUUM (ANALYZE) tasks, task_search');
  }

  /** One INSERT of several rows; a row's missing columns take their defaults. */
  private insertBatch(rows: TaskRow[]): void {
    const columns = INSERTABLE_COLUMNS.filter((c) => rows.some((r) => r[c] !== undefined));
    const p = new Params();
    const tuples = rows.map(
      (row) =>
        `(${[
          ...columns.map((c) => (row[c] === undefined ? 'DEFAULT' : p.add(row[c]))),
          p.add(this.host),
          p.add(this.folderId),
        ].join(', ')})`,
    );
    this.q(
      `INSERT INTO tasks (${[...columns.map(quote), 'host', 'folder_id'].join(', ')}) VALUES ${tuples.join(', ')}`,
      p.values,
    );
  }

  /**
   * Inserts rows, or replaces the row with the same uuid by these values (a copy from
   * tasks.db run again after an interruption ends with the source's exact counters).
   */
  upsertRows(rows: TaskRow[]): void {
    if (rows.length === 0) return;
    const columns = [...INSERTABLE_COLUMNS, 'control' as const];
    const p = new Params();
    const tuples = rows.map(
      (row) =>
        `(${[...columns.map((c) => p.add(row[c] ?? null)), p.add(this.host), p.add(this.folderId)].join(', ')})`,
    );
    this.q(
      `INSERT INTO tasks (${[...columns.map(quote), 'host', 'folder_id'].join(', ')}) VALUES ${tuples.join(', ')}
       ON CONFLICT (uuid) DO UPDATE SET ${[
         ...columns.filter((c) => c !== 'uuid'),
         'host',
         'folder_id',
       ]
         .map((c) => `${quote(c)} = EXCLUDED.${quote(c)}`)
         .join(', ')}`,
      p.values,
    );
  }

  get(uuid: string): TaskRow | undefined {
    return this.q<TaskRow>('SELECT * FROM tasks WHERE uuid = $1', [uuid]).rows[0];
  }

  require(uuid: string): TaskRow {
    const row = this.get(uuid);
    if (!row) throw notFound(`no task with id ${uuid}`);
    return row;
  }

  setStatus(uuid: string, status: TaskStatus, extra: StatusExtra = {}): void {
    return this.retrying(() => {
      const ended = status === 'completed' || status === 'failed';
      const { rowCount } = this.q(
        `UPDATE tasks SET status = $2, updated_at = $3,
         completed_at = CASE WHEN $4::boolean THEN $3 ELSE NULL END,
         started_at = CASE WHEN $2 = 'running' THEN $3 ELSE started_at END,
         error_message = CASE WHEN $5::boolean THEN $6
           ELSE (CASE WHEN $2 = 'running' THEN NULL ELSE error_message END) END,
         process_id = CASE WHEN $7::boolean THEN $8::integer ELSE process_id END,
         hostname = CASE WHEN $7::boolean THEN $9 ELSE hostname END
       WHERE uuid = $1`,
        [
          uuid,
          status,
          isoTimestamp(),
          ended,
          extra.error_message !== undefined,
          extra.error_message ?? null,
          extra.process_id !== undefined,
          extra.process_id ?? null,
          extra.hostname ?? null,
        ],
      );
      if (rowCount === 0) throw notFound(`no task with id ${uuid}`);
    });
  }

  /** One UPDATE of x = x + n: PostgreSQL serializes concurrent ones on the row, none is lost. */
  addStats(uuid: string, inc: StatIncrements): void {
    return this.retrying(() => {
      const p = new Params();
      const sets = statIncrements(inc).flatMap(({ value, columns }) => {
        const n = p.add(value);
        return columns.map((c) => `${c} = ${c} + ${n}`);
      });
      sets.push(`updated_at = ${p.add(isoTimestamp())}`);
      this.q(`UPDATE tasks SET ${sets.join(', ')} WHERE uuid = ${p.add(uuid)}`, p.values);
    });
  }

  /**
   * Sets counters to absolute values (a source task's totals: docs/sources.md), so doing
   * it again changes nothing. Only counter columns of addStats (statIncrements) are taken.
   */
  setCounters(uuid: string, totals: Record<string, number>): void {
    const p = new Params();
    const sets = Object.entries(totals)
      .filter(([column]) => COUNTER_COLUMNS.has(column))
      .map(([column, value]) => `${column} = ${p.add(value)}::bigint`);
    if (sets.length === 0) return;
    this.q(`UPDATE tasks SET ${sets.join(', ')} WHERE uuid = ${p.add(uuid)}`, p.values);
  }

  setFinalStats(uuid: string, stats: FinalStats): void {
    return this.retrying(() => {
      this.q(
        `UPDATE tasks SET total_messages = $2, total_summaries = $3,
         total_tool_calls = $4, tool_call_count = $4, compression_count = $3,
         final_token_count = $5, final_message_count = $6, updated_at = $7
       WHERE uuid = $1`,
        [
          uuid,
          stats.total_messages,
          stats.total_summaries,
          stats.total_tool_calls,
          stats.final_token_count,
          stats.final_message_count,
          isoTimestamp(),
        ],
      );
    });
  }

  setMetadata(uuid: string, metadata: unknown): void {
    return this.retrying(() => {
      this.q('UPDATE tasks SET metadata = $2, updated_at = $3 WHERE uuid = $1', [
        uuid,
        JSON.stringify(metadata),
        isoTimestamp(),
      ]);
    });
  }

  setImportedFacts(uuid: string, facts: ImportedFacts): void {
    this.q(
      `UPDATE tasks SET created_at = COALESCE($2, created_at),
         started_at = COALESCE($3, $2, started_at),
         completed_at = COALESCE($4, completed_at),
         updated_at = COALESCE($4, $2, updated_at),
         model = COALESCE(model, $5),
         agent = $6,
         git_branch = $7
       WHERE uuid = $1`,
      [
        uuid,
        facts.created_at,
        facts.started_at,
        facts.completed_at,
        facts.model,
        facts.agent,
        facts.git_branch,
      ],
    );
  }

  /** This folder's imports only: it alone holds their files and writes their rows. */
  importsToFix(): ImportsToFix {
    const own = this.ownRows();
    const uuids = (where: string, order = 'seq') =>
      this.client
        .query<{ uuid: string }>(
          `SELECT uuid FROM tasks WHERE ${own.sql} AND agent <> '' AND ${where} ORDER BY ${order}`,
          own.params,
        )
        .rows.map((r) => r.uuid);
    return {
      // ILIKE: SQLite's LIKE ignores ASCII case.
      wrongTitleOrTokens: this.q<ImportsToFix['wrongTitleOrTokens'][number]>(
        `SELECT uuid, status, title, total_tokens FROM tasks
         WHERE ${own.sql} AND agent <> '' AND status IN ('completed', 'failed')
           AND (total_tokens = 0 OR title IS NULL OR title LIKE '/%' OR title LIKE '<%' OR title ILIKE 'Caveat:%')
         ORDER BY seq`,
        own.params,
      ).rows,
      noBranch: uuids('git_branch IS NULL'),
      empty: uuids('total_messages = 0', 'created_at, seq'),
    };
  }

  fixImport(uuid: string, fix: ImportFix): void {
    this.q(
      `UPDATE tasks SET title = COALESCE($2, title),
         total_tokens = COALESCE($3::bigint, total_tokens),
         git_branch = COALESCE($4, git_branch)
       WHERE uuid = $1`,
      [uuid, fix.title ?? null, fix.total_tokens ?? null, fix.git_branch ?? null],
    );
  }

  requestControl(uuid: string, action: ControlAction): void {
    const { rowCount } = this.q('UPDATE tasks SET control = $2, updated_at = $3 WHERE uuid = $1', [
      uuid,
      action,
      isoTimestamp(),
    ]);
    if (rowCount === 0) throw notFound(`no task with id ${uuid}`);
  }

  takeControl(uuid: string): ControlAction | null {
    return this.retrying(() => {
      // One statement: the row lock makes a second taker wait and then find NULL.
      const { rows } = this.q<{ control: string }>(
        `UPDATE tasks AS t SET control = NULL
       FROM (SELECT uuid, control FROM tasks WHERE uuid = $1 FOR UPDATE) AS old
       WHERE t.uuid = old.uuid AND old.control IS NOT NULL
       RETURNING old.control`,
        [uuid],
      );
      const action = rows[0]?.control ?? null;
      return CONTROL_ACTIONS.includes(action as ControlAction) ? (action as ControlAction) : null;
    });
  }

  /** Adds to usage_hours (pg-schema.ts v6) in one statement; nothing when the task is gone. */
  addUsageHours(uuid: string, hours: readonly HourUsage[]): void {
    if (hours.length === 0) return;
    const column = (key: keyof HourUsage) => hours.map((h) => h[key]);
    this.q(
      `INSERT INTO usage_hours (task, hour, input_tokens, output_tokens, cache_read_tokens,
         cache_creation_tokens)
       SELECT t.seq, h.* FROM tasks AS t
       CROSS JOIN unnest($2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[]) AS h
       WHERE t.uuid = $1
       ON CONFLICT (task, hour) DO UPDATE SET
         input_tokens = usage_hours.input_tokens + EXCLUDED.input_tokens,
         output_tokens = usage_hours.output_tokens + EXCLUDED.output_tokens,
         cache_read_tokens = usage_hours.cache_read_tokens + EXCLUDED.cache_read_tokens,
         cache_creation_tokens = usage_hours.cache_creation_tokens + EXCLUDED.cache_creation_tokens`,
      [
        uuid,
        column('hour'),
        column('input_tokens'),
        column('output_tokens'),
        column('cache_read_tokens'),
        column('cache_creation_tokens'),
      ],
    );
  }

  delete(uuid: string): void {
    this.q('DELETE FROM tasks WHERE uuid = $1', [uuid]);
  }

  write<T>(fn: () => T): T {
    return this.transaction(fn, `BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK})`);
  }

  /**
   * A transaction that takes no lock of the fleet's (write's advisory lock): for writers
   * that serialize on rows of their own (the message index's cursor, pg-message-index.ts),
   * so a long batch never holds up every other host's writes. Nested: a savepoint.
   */
  transaction<T>(fn: () => T, begin = 'BEGIN'): T {
    if (this.depth > 0) {
      const savepoint = `cwb_${this.depth}`;
      this.q(`SAVEPOINT ${savepoint}`);
      this.depth++;
      try {
        const result = fn();
        this.q(`RELEASE SAVEPOINT ${savepoint}`);
        return result;
      } catch (err) {
        this.q(`ROLLBACK TO SAVEPOINT ${savepoint}`);
        throw err;
      } finally {
        this.depth--;
      }
    }
    this.retrying(() => this.client.begin(begin));
    this.depth = 1;
    let result: T;
    try {
      result = fn();
    } catch (err) {
      this.depth = 0;
      try {
        this.client.rollback();
      } catch {
        // The connection is gone: the server rolled back already.
      }
      throw err;
    }
    this.depth = 0;
    this.client.commit();
    return result;
  }

  /** The rows of this contexts folder's tasks: its own, never another folder's (issue 29). */
  allStatuses(): Map<string, TaskOwner> {
    const own = this.ownRows();
    const rows = this.q<TaskOwner & { uuid: string }>(
      `SELECT uuid, status, process_id, hostname FROM tasks WHERE ${own.sql}`,
      own.params,
    ).rows;
    return new Map(
      rows.map((r) => [
        r.uuid,
        { status: r.status, process_id: r.process_id, hostname: r.hostname },
      ]),
    );
  }

  /**
   * A page and its total, answered by the indexes (docs/fleet.md, "How the pages stay fast"):
   * - the page's rows come from the sort's index, which ends with seq, the tie-break;
   * - a deep page skips its offset in that index alone (index-only) and reads only the
   *   rows it shows; past the middle of a list whose length is known, it walks in from
   *   the other end, so the last page costs what the first does;
   * - the total comes from the kept counts (task_counts) when the filter is statuses or
   *   one host, from a short last page, or else is counted;
   * - a search reads every candidate row of the trigram indexes to decide ILIKE anyway,
   *   so one statement collects its matches once and takes both the total and the page
   *   from them.
   */
  query(q: TaskQuery = {}): { rows: TaskRow[]; total: number } {
    const { sort, order, limit, offset } = pageOf(q);
    const where = pgWhere(q);
    // Cost has no column: its expression is evaluated per row, over the tasks table alone.
    const key =
      sort === 'cost' && q.costRates
        ? costSqlOf(q.costRates, typedBinder(where.params))
        : quote(sort === 'cost' ? 'created_at' : sort);
    if (q.search) return this.searchPage(where, key, order, limit, offset);

    const known = offset > 0 ? this.keptTotal(q) : undefined;
    if (known !== undefined) {
      if (offset >= known || limit === 0) return { rows: [], total: known };
      // Past the middle: the same rows, walking in from the end.
      const fromEnd = known - offset - limit;
      if (fromEnd < offset) {
        const reversed = order === 'ASC' ? 'DESC' : 'ASC';
        const rows = this.page(
          where,
          key,
          reversed,
          limit + Math.min(0, fromEnd),
          Math.max(0, fromEnd),
        );
        return { rows: rows.reverse(), total: known };
      }
    }
    const rows = this.page(where, key, order, limit, offset);
    if (known !== undefined) return { rows, total: known };
    if (rows.length < limit && (rows.length > 0 || offset === 0)) {
      return { rows, total: offset + rows.length };
    }
    return { rows, total: this.keptTotal(q) ?? this.count(q) };
  }

  /** One page in `order` (NULLs lowest, as SQLite sorts them; ties by seq). */
  private page(
    where: { sql: string; params: Params },
    key: string,
    order: 'ASC' | 'DESC',
    limit: number,
    offset: number,
  ): TaskRow[] {
    const p = where.params.copy();
    // Unqualified: in the deferred join below, only tasks has these columns (seq is USING's).
    const orderBy = `${key} ${order} ${nullsOf(order)}, seq ${order}`;
    // A deep page skips its offset in the sort's index alone (index-only: the index ends
    // with seq) and reads only the rows it shows; OFFSET over SELECT * would read every
    // skipped row from the table (1.6 s at offset 50,000 of 100,000).
    const sql =
      offset === 0
        ? `SELECT * FROM tasks ${where.sql} ORDER BY ${orderBy} LIMIT ${p.add(limit)}`
        : `SELECT t.* FROM (SELECT seq FROM tasks ${where.sql} ORDER BY ${orderBy}
             LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}) AS page
           JOIN tasks AS t USING (seq) ORDER BY ${orderBy}`;
    return this.q<TaskRow>(sql, p.values).rows;
  }

  /**
   * A search's page and total in one statement. Its matches (seq and sort key) are
   * collected once — the trigram candidates read and checked by ILIKE, the other filters
   * applied — and both the count and the page's top-N come from that set; the page's 100
   * rows are read last. (A window COUNT(*) OVER () would do the same in theory, but
   * PostgreSQL 15 plans it as if the LIMIT could stop early, walking the whole sort index
   * and checking every task's text one by one.) The count row is there even when the page
   * is empty.
   */
  private searchPage(
    where: { sql: string; params: Params },
    key: string,
    order: 'ASC' | 'DESC',
    limit: number,
    offset: number,
  ): { rows: TaskRow[]; total: number } {
    const p = where.params.copy();
    const by = `page.k ${order} ${nullsOf(order)}, page.seq ${order}`;
    const found = this.q<TaskRow & { cwb_total: number }>(
      `WITH matches AS MATERIALIZED (SELECT seq, ${key} AS k FROM tasks ${where.sql})
       SELECT c.cwb_total, t.* FROM (SELECT COUNT(*)::bigint AS cwb_total FROM matches) AS c
       LEFT JOIN ((SELECT seq, k FROM matches ORDER BY k ${order} ${nullsOf(order)}, seq ${order}
           LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}) AS page
         JOIN tasks AS t ON t.seq = page.seq) ON true
       ORDER BY ${by}`,
      p.values,
    ).rows;
    const total = found[0]?.cwb_total ?? 0;
    const rows = found
      .filter((r) => r.uuid !== null)
      .map(({ cwb_total: _total, ...row }) => row as TaskRow);
    return { rows, total };
  }

  /** Counts the tasks matching `filter`. */
  private count(filter: TaskFilter): number {
    const where = pgWhere(filter);
    return this.q<{ n: number }>(
      `SELECT COUNT(*)::bigint AS n FROM tasks ${where.sql}`,
      where.params.values,
    ).rows[0]!.n;
  }

  /**
   * The number of tasks matching `filter` from the kept counts, when the filter is no more
   * than statuses, or one host (each task has one status and one host); else undefined.
   */
  private keptTotal(filter: TaskFilter): number | undefined {
    const statuses = filter.status?.length ? filter.status : undefined;
    const others = hasOtherFilters({ ...filter, host: undefined });
    if (others || (statuses && filter.host)) return undefined;
    if (filter.host) {
      const hosts = this.keptCounts(['host']).get('host')!;
      return hosts.find((r) => r.value === filter.host)?.n ?? 0;
    }
    return this.keptCounts(['status'])
      .get('status')!
      .filter((r) => !statuses || (statuses as string[]).includes(r.value))
      .reduce((t, r) => t + r.n, 0);
  }

  endedBefore(cutoff: string): TaskRow[] {
    return this.q<TaskRow>(
      `SELECT * FROM tasks WHERE status IN ('completed', 'failed') AND completed_at < $1
       ORDER BY completed_at`,
      [cutoff],
    ).rows;
  }

  findPreviousByKey(key: TaskKey, since: string, excludeUuid?: string): TaskRow | undefined {
    return this.q<TaskRow>(
      `SELECT * FROM tasks WHERE task_source = $1 AND owner = $2 AND repo = $3
         AND task_type = $4 AND task_id = $5 AND COALESCE("user", '') = $6
         AND status IN ('completed', 'failed') AND completed_at >= $7 AND uuid <> $8
       ORDER BY completed_at DESC LIMIT 1`,
      [
        key.task_source,
        key.owner,
        key.repo,
        key.task_type,
        key.task_id,
        key.user,
        since,
        excludeUuid ?? '',
      ],
    ).rows[0];
  }

  statusCounts(filter: TaskFilter): TaskFacets['status'] {
    const status = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<
      TaskStatus,
      number
    >;
    let rows: { value: string; n: number }[];
    if (hasOtherFilters(filter)) {
      const where = pgWhere({ ...filter, status: undefined });
      rows = this.q<{ value: TaskStatus; n: number }>(
        `SELECT status AS value, COUNT(*)::bigint AS n FROM tasks ${where.sql} GROUP BY status`,
        where.params.values,
      ).rows;
    } else {
      // The first view: the kept counts, as tasks.db reads task_counts.
      rows = this.keptCounts(['status']).get('status')!;
    }
    for (const row of rows) if (row.value in status) status[row.value as TaskStatus] = row.n;
    return status;
  }

  facetValues(maxValues = MAX_FACET_VALUES): FacetValues {
    const kept = this.keptCounts(['repository', 'user', 'model', 'agent', 'host']);
    const list = (facet: string, max = maxValues) =>
      kept
        .get(facet)!
        .slice(0, max)
        .map(({ value, n }) => ({ value, count: n }));
    return {
      repos: list('repository'),
      users: list('user'),
      models: list('model'),
      // As tasks.db lists them: '' (this app's own tasks) included, at most 50.
      agents: list('agent', 50),
      hosts: list('host'),
    };
  }

  distinctModels(): (string | null)[] {
    return this.q<{ model: string | null }>('SELECT DISTINCT model FROM tasks').rows.map(
      (r) => r.model,
    );
  }

  sumCost(filter: TaskFilter, rates: readonly ModelRate[]): CostSum {
    const where = pgWhere(filter);
    // Typed: with no rated model the expression is a bare NULL, which SUM cannot take.
    const expr = costSqlOf(rates, typedBinder(where.params));
    return this.q<CostSum>(
      `SELECT COALESCE(SUM(v), 0)::float8 AS usd, (COUNT(*) - COUNT(v))::bigint AS unknown,
         COUNT(*)::bigint AS tasks FROM (SELECT (${expr})::float8 AS v FROM tasks ${where.sql}) AS c`,
      where.params.values,
    ).rows[0]!;
  }

  /**
   * Facets' values and counts from task_counts' delta rows (pg-schema.ts v3), most used
   * first, in one statement. When the deltas have piled up, folds them into one row per value.
   */
  private keptCounts(facets: readonly string[]): Map<string, { value: string; n: number }[]> {
    const rows = this.q<{ facet: string; value: string; n: number; parts: number }>(
      `SELECT facet, value, SUM(n)::bigint AS n, COUNT(*)::bigint AS parts FROM task_counts
       WHERE facet = ANY($1::text[]) GROUP BY facet, value ORDER BY n DESC, value`,
      [facets],
    ).rows;
    const parts = rows.reduce((sum, r) => sum + r.parts, 0);
    if (parts > 2 * rows.length + FOLD_AFTER && this.depth === 0) this.foldCounts();
    const byFacet = new Map(facets.map((f) => [f, [] as { value: string; n: number }[]]));
    for (const r of rows) if (r.n > 0) byFacet.get(r.facet)!.push({ value: r.value, n: r.n });
    return byFacet;
  }

  /**
   * Replaces the delta rows by their sums in one statement (rows inserted meanwhile are
   * kept as they are). One folder at a time; a read-only role just reads the deltas.
   */
  private foldCounts(): void {
    try {
      this.q(
        `WITH lock AS (SELECT pg_try_advisory_xact_lock(${FOLD_LOCK}) AS ok),
           gone AS (DELETE FROM task_counts WHERE (SELECT ok FROM lock) RETURNING facet, value, n)
         INSERT INTO task_counts (facet, value, n)
           SELECT facet, value, SUM(n) FROM gone GROUP BY facet, value HAVING SUM(n) <> 0`,
      );
    } catch {
      // Folding only saves reading time; the deltas stay correct without it.
    }
  }

  stamp(): string {
    const row = this.q<{ v: string; called: boolean }>(
      'SELECT last_value::text AS v, is_called AS called FROM tasks_change_seq',
    ).rows[0]!;
    return `${row.v}|${row.called}`;
  }

  /**
   * The rows this index's folder owns, as SQL with $1 (and $2): its folder's, or without
   * a folder the host's rows of no folder (written before folders had ids).
   */
  private ownRows(): { sql: string; params: unknown[] } {
    return this.folderId
      ? { sql: 'folder_id = $1', params: [this.folderId] }
      : { sql: 'host = $1 AND folder_id IS NULL', params: [this.host] };
  }

  /**
   * Renews this folder's lease and records where it is (docs/fleet.md). A folder another
   * host registered is left as it is (joinFleetFolder refuses such a copy on open).
   */
  heartbeat(contextsRoot: string, leaseMs: number): void {
    if (this.folderId) {
      this.q(
        `INSERT INTO folders (id, host, contexts_root, lease_expires)
         VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')
         ON CONFLICT (id) DO UPDATE SET contexts_root = EXCLUDED.contexts_root,
           last_seen = now(), lease_expires = EXCLUDED.lease_expires
         WHERE folders.host = EXCLUDED.host`,
        [this.folderId, this.host, contextsRoot, leaseMs],
      );
      return;
    }
    this.q(
      `INSERT INTO hosts (name, contexts_root, lease_expires)
       VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (name) DO UPDATE SET contexts_root = EXCLUDED.contexts_root,
         last_seen = now(), lease_expires = EXCLUDED.lease_expires`,
      [this.host, contextsRoot, leaseMs],
    );
  }

  /**
   * Marks the running tasks of every other host whose lease ran out as interrupted
   * (failed, resumable), judged by the server's clock alone; returns them. Their folders
   * stay where they are: the owning host's recovery moves them when it comes back.
   */
  interruptExpiredHosts(): { uuid: string; host: string }[] {
    const now = isoTimestamp();
    const lastSeen = `to_char(x.last_seen AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
    // Each folder by its own lease (another folder of this host too: its process died).
    const ofFolders = this.q<{ uuid: string; host: string }>(
      `UPDATE tasks SET status = 'failed', completed_at = $2, updated_at = $2,
         error_message = 'interrupted: host ' || x.host || ' stopped renewing its lease (contexts folder '
           || x.contexts_root || ', last seen ' || ${lastSeen} || ')'
       FROM folders AS x
       WHERE tasks.folder_id = x.id AND x.id IS DISTINCT FROM $1 AND x.lease_expires < now()
         AND tasks.status = 'running'
       RETURNING tasks.uuid, tasks.host`,
      [this.folderId, now],
    ).rows;
    // Rows of no folder yet (written before v5): their host's lease, as before.
    const ofHosts = this.q<{ uuid: string; host: string }>(
      `UPDATE tasks SET status = 'failed', completed_at = $2, updated_at = $2,
         error_message = 'interrupted: host ' || x.name || ' stopped renewing its lease (last seen '
           || ${lastSeen} || ')'
       FROM hosts AS x
       WHERE tasks.folder_id IS NULL AND tasks.host = x.name AND x.name <> $1
         AND x.lease_expires < now() AND tasks.status = 'running'
       RETURNING tasks.uuid, tasks.host`,
      [this.host, now],
    ).rows;
    return [...ofFolders, ...ofHosts];
  }

  /** Every contexts folder that ever joined the index, by host, with its lease and tasks. */
  folders(): FolderLease[] {
    return this.q<FolderLease>(
      `SELECT f.id, f.host, f.contexts_root, f.last_seen::text, f.lease_expires::text,
         f.lease_expires >= now() AS alive,
         (SELECT COUNT(*) FROM tasks WHERE folder_id = f.id)::bigint AS tasks
       FROM folders AS f ORDER BY f.host, f.contexts_root, f.id`,
    ).rows;
  }

  /** The registration of folder `id`, if any (locked until the write transaction ends). */
  registeredFolder(id: string): FolderLease | undefined {
    return this.q<FolderLease>(
      `SELECT id, host, contexts_root, last_seen::text, lease_expires::text,
         lease_expires >= now() AS alive, 0 AS tasks
       FROM folders WHERE id = $1 ${this.depth > 0 ? 'FOR UPDATE' : ''}`,
      [id],
    ).rows[0];
  }

  /**
   * Rows of this host written before folders had ids (v4 and earlier) become this
   * folder's: those whose uuids are given, or with 'all', every one (the host's lease
   * named this folder, its only one). Returns how many.
   */
  adoptHostRows(uuids: readonly string[] | 'all'): number {
    if (!this.folderId) return 0;
    const params: unknown[] = [this.folderId, this.host];
    if (uuids !== 'all') params.push(uuids);
    return this.q(
      `UPDATE tasks SET folder_id = $1 WHERE host = $2 AND folder_id IS NULL
       ${uuids === 'all' ? '' : 'AND uuid = ANY($3::text[])'}`,
      params,
    ).rowCount;
  }

  /** Whether this host has rows of no folder (written before v5), and its old lease's folder. */
  hostRowsWithoutFolder(): { any: boolean; contextsRoot: string | null } {
    const row = this.q<{ any: boolean; root: string | null }>(
      `SELECT EXISTS (SELECT 1 FROM tasks WHERE host = $1 AND folder_id IS NULL) AS any,
         (SELECT contexts_root FROM hosts WHERE name = $1) AS root`,
      [this.host],
    ).rows[0]!;
    return { any: row.any, contextsRoot: row.root };
  }

  /** Every host that ever joined the index, with its lease. */
  hosts(): HostLease[] {
    return this.q<HostLease>(
      `SELECT name, contexts_root, last_seen::text, lease_expires::text,
         lease_expires >= now() AS alive
       FROM hosts ORDER BY name`,
    ).rows;
  }

  close(): void {
    this.client.close();
  }

  /** One statement, waiting for the server when this process waits (see retrying). */
  private q<Row = Record<string, unknown>>(sql: string, params: unknown[] = []) {
    return this.retrying(() => this.client.query<Row>(sql, params));
  }

  /**
   * Runs a task's own write; while the server is unreachable (and outside a transaction,
   * which the server rolled back), waits and runs it again, up to waitMs. A statement the
   * server was cut off in the middle of did not commit (PostgreSQL aborts it), so running
   * it again adds nothing twice.
   */
  private retrying<T>(fn: () => T): T {
    if (this.waitMs <= 0 || this.depth > 0) return fn();
    const deadline = Date.now() + this.waitMs;
    let delay = 250;
    let told = false;
    for (;;) {
      try {
        const result = fn();
        if (told) this.onWaiting(`the task index ${this.location} is back; going on`);
        return result;
      } catch (err) {
        if (!(err instanceof PgError) || err.code !== 'io' || Date.now() + delay > deadline) {
          throw err;
        }
        if (!told) {
          this.onWaiting(
            `${err.message}; waiting for it (up to ${Math.round(this.waitMs / 1000)} s), the task's files are kept`,
          );
          told = true;
        }
        sleepSync(delay);
        delay = Math.min(delay * 2, 5000);
      }
    }
  }

  /** Brings the schema up to date, under a lock so hosts starting together migrate once. */
  private migrate(): void {
    const current = this.schemaVersion();
    if (current > PG_SCHEMA_VERSION) {
      throw new CwbError(
        'bad_input',
        `${this.location}: schema version ${current} is newer than this version of cwb understands (${PG_SCHEMA_VERSION}); upgrade cwb`,
      );
    }
    // A read-only role can use an index at the current version; only upgrading writes.
    if (current === PG_SCHEMA_VERSION) return;
    // Another host may be upgrading: its lock is held for as long as that takes.
    this.client.begin(`BEGIN; SELECT pg_advisory_xact_lock(${MIGRATE_LOCK})`, MIGRATE_TIMEOUT_MS);
    try {
      this.client.query('CREATE TABLE IF NOT EXISTS cwb_schema (version INTEGER NOT NULL)');
      const locked = this.schemaVersion();
      // Index builds of a large table (v4's trigram indexes) go faster with more memory.
      if (locked < PG_SCHEMA_VERSION) this.client.query("SET LOCAL maintenance_work_mem = '256MB'");
      for (let version = locked; version < PG_SCHEMA_VERSION; version++) {
        this.client.query(PG_MIGRATIONS[version]!, [], MIGRATE_TIMEOUT_MS);
      }
      this.client.query('DELETE FROM cwb_schema');
      this.client.query('INSERT INTO cwb_schema (version) VALUES ($1)', [PG_SCHEMA_VERSION]);
    } catch (err) {
      try {
        this.client.rollback();
      } catch {
        // Gone with the connection.
      }
      throw err;
    }
    this.client.commit();
  }

  schemaVersion(): number {
    const exists = this.client.query<{ t: string | null }>(
      "SELECT to_regclass('cwb_schema')::text AS t",
    ).rows[0]!.t;
    if (!exists) return 0;
    return (
      this.client.query<{ version: number }>('SELECT version FROM cwb_schema').rows[0]?.version ?? 0
    );
  }
}

/** Double quotes a column name ("user" is a reserved word in PostgreSQL). */
/** A binder for costSqlOf: typed placeholders, since a bare $n beside an integer column would be read as an integer. */
function typedBinder(p: Params): (value: unknown) => string {
  return (value) => `${p.add(value)}::${typeof value === 'number' ? 'float8' : 'text'}`;
}

function quote(column: string): string {
  return `"${column}"`;
}

/** task-filter.ts's filter in PostgreSQL: the same matches, answered by the indexes. */
export function pgWhere(q: TaskFilter): { sql: string; params: Params } {
  const p = new Params();
  const where: string[] = [];
  if (q.status?.length) {
    const names = q.status.filter((s) => (TASK_STATUSES as readonly string[]).includes(s));
    where.push(`status = ANY(${p.add(names)}::text[])`);
  }
  if (q.repo) {
    const v = p.add(q.repo);
    where.push(`(repo = ${v} OR repository = ${v})`);
  }
  if (q.user) where.push(`"user" = ${p.add(q.user)}`);
  if (q.model) where.push(`model = ${p.add(q.model)}`);
  if (q.agent !== undefined) where.push(`agent = ${p.add(q.agent)}`);
  if (q.host) where.push(`host = ${p.add(q.host)}`);
  if (q.search) {
    // task_search's trigram indexes answer ILIKE (pg-schema.ts v4); backslash is ILIKE's
    // default escape, as in likePattern.
    const v = p.add(likePattern(q.search));
    where.push(`seq IN (SELECT seq FROM task_search WHERE title ILIKE ${v} OR prompt ILIKE ${v})`);
  }
  if (q.createdFrom) where.push(`created_at >= ${p.add(q.createdFrom)}`);
  if (q.createdTo) where.push(`created_at <= ${p.add(q.createdTo)}`);
  return { sql: where.length ? `WHERE ${where.join(' AND ')}` : '', params: p };
}
