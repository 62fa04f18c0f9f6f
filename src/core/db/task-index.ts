import type { TaskFacets } from '../../shared/api/tasks-api';
import { TASK_SORT_COLUMNS } from '../../shared/api/tasks-api';
import type { TaskKey, TaskRow, TaskStatus, TokenUsage } from '../../shared/task-types';
import type { HourUsage } from '../usage/usage-hours';
import type { FacetValues } from './task-facets';
import type { TaskFilter } from './task-filter';

/**
 * The task index: every read and write of the tasks table, whichever database holds it
 * (SQLite's tasks.db on one host, PostgreSQL for a fleet of hosts; docs/fleet.md). The
 * interface is synchronous on both: the store moves a task's folder inside the index's
 * write transaction, and the rest of the engine calls it from synchronous code.
 */
export interface TaskIndex {
  /** 'sqlite' or 'postgres'. */
  readonly kind: TaskIndexKind;
  /** Where the index is, for messages (a PostgreSQL URL without its password). */
  readonly location: string;

  insert(row: NewTaskRow): void;
  /** Inserts a complete row as it was recorded elsewhere (restoring an archive). */
  insertRow(row: TaskRow): void;
  /** Many rows at once (a bulk import, generated data), in one transaction. */
  insertRows(rows: Iterable<TaskRow>): void;
  get(uuid: string): TaskRow | undefined;
  require(uuid: string): TaskRow;
  /** seed 001 update_status: status, error message, completed_at and updated_at together. */
  setStatus(uuid: string, status: TaskStatus, extra?: StatusExtra): void;
  /** seed 000 update_statistics: counters only ever grow, atomically (no lost update). */
  addStats(uuid: string, inc: StatIncrements): void;
  setFinalStats(uuid: string, stats: FinalStats): void;
  setMetadata(uuid: string, metadata: unknown): void;
  /**
   * Adds provider usage by UTC hour to a task (usage_hours: what an import or a sync saw,
   * docs/search-and-usage.md); nothing when the task is gone.
   */
  addUsageHours(uuid: string, hours: readonly HourUsage[]): void;
  /**
   * What an imported session says of itself: its own times (updated_at becomes when it last
   * changed), model (kept if the row has one), the agent that wrote it and its git branch.
   */
  setImportedFacts(uuid: string, facts: ImportedFacts): void;
  /**
   * Imported tasks earlier importers may have got wrong (rederive-imports.ts): ended ones
   * with no token total or a boilerplate title (`wrongTitleOrTokens`), those whose branch
   * was never copied into git_branch (`noBranch`), those without a message (`empty`).
   */
  importsToFix(): ImportsToFix;
  /** Sets what rederive-imports.ts read back from an imported task's own files. */
  fixImport(uuid: string, fix: ImportFix): void;
  requestControl(uuid: string, action: ControlAction): void;
  /** Reads and clears the pending request atomically, so a request is acted on once. */
  takeControl(uuid: string): ControlAction | null;
  delete(uuid: string): void;
  /**
   * Runs `fn` as one write transaction, exclusive against every other `write` of every
   * process (and host) sharing the index; nested calls are savepoints. The store moves
   * folders inside it, so no other writer sees a row and its folder disagree.
   */
  write<T>(fn: () => T): T;
  /** uuid → status of the tasks whose folders this host's contexts folder holds. */
  allStatuses(): Map<string, TaskOwner>;
  /** Paged, sorted, filtered listing, answered by the database's indexes. */
  query(q?: TaskQuery): { rows: TaskRow[]; total: number };
  /** Completed or failed tasks that ended before `cutoff` (ISO): the cleanup candidates. */
  endedBefore(cutoff: string): TaskRow[];
  /** The newest ended task with the same key, within the window (seed 001 §8.2). */
  findPreviousByKey(key: TaskKey, since: string, excludeUuid?: string): TaskRow | undefined;
  /** Counts per status, every filter applied but the status one. */
  statusCounts(filter: TaskFilter): TaskFacets['status'];
  /** The distinct repositories, users and models, most used first. */
  facetValues(maxValues?: number): FacetValues;
  /** The distinct models of all tasks (NULL included): what a price book must rate. */
  distinctModels(): (string | null)[];
  /**
   * The cost of the tasks matching `filter` at `rates`, and how many of them have no known
   * cost (an unrated model or no usage: counted, never added as $0).
   */
  sumCost(filter: TaskFilter, rates: readonly ModelRate[]): CostSum;
  /** Changes whenever the tasks table may have changed (cheap: polled while a UI listens). */
  stamp(): string;
  close(): void;
}

export interface ImportedFacts {
  created_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  model: string | null;
  agent: string;
  git_branch: string | null;
}

export interface CostSum {
  usd: number;
  unknown: number;
  tasks: number;
}

/**
 * A row's cost as SQL over the tasks table's columns, NULL where it is unknown (no usage,
 * or a model without a rate). `bind` turns a value into the backend's placeholder. Each
 * model is priced in JS beforehand, so the SQL only compares names (a few comparisons a
 * row, however long the table).
 */
export function costSqlOf(rates: readonly ModelRate[], bind: (value: unknown) => string): string {
  if (rates.length === 0) return '(NULL)';
  const cases = rates.map(
    (r) =>
      `WHEN ${bind(r.model)} THEN input_tokens * ${bind(r.input)} + output_tokens * ${bind(r.output)} + ` +
      `cache_read_tokens * ${bind(r.cache_read)} + cache_creation_tokens * ${bind(r.cache_write)}`,
  );
  const noUsage = 'input_tokens + output_tokens + cache_read_tokens + cache_creation_tokens = 0';
  return `(CASE WHEN ${noUsage} THEN NULL ELSE CASE model ${cases.join(' ')} ELSE NULL END END)`;
}

export interface ImportsToFix {
  wrongTitleOrTokens: Pick<TaskRow, 'uuid' | 'status' | 'title' | 'total_tokens'>[];
  noBranch: string[];
  /** Oldest first. */
  empty: string[];
}

export interface ImportFix {
  title?: string;
  total_tokens?: number;
  /** '' when the transcript named none, so the task is not read again. */
  git_branch?: string;
}

export type TaskIndexKind = 'sqlite' | 'postgres';

export interface TaskOwner {
  status: TaskStatus;
  process_id: number | null;
  hostname: string | null;
}

export interface StatusExtra {
  error_message?: string | null;
  process_id?: number | null;
  hostname?: string | null;
}

/** A row's figures: what addStats adds to and setFinalStats sets. */
export const FIGURE_COLUMNS = [
  'llm_call_count',
  'tool_call_count',
  'input_tokens',
  'output_tokens',
  'cache_creation_tokens',
  'cache_read_tokens',
  'total_tokens',
  'compression_count',
  'total_messages',
  'total_summaries',
  'total_tool_calls',
  'final_token_count',
  'final_message_count',
] as const satisfies readonly (keyof TaskRow)[];
export type FigureColumn = (typeof FIGURE_COLUMNS)[number];

/**
 * A new row's columns that are otherwise written by updates after it: for a row inserted
 * complete (TaskRepository.insertComplete), its descriptions and figures at once.
 */
export interface RowCompletion {
  agent: string;
  git_branch: string | null;
  updated_at: string;
  figures: Partial<Record<FigureColumn, number>>;
}

/** What a new task row starts with. */
export interface NewTaskRow {
  uuid: string;
  key: TaskKey;
  title?: string | null;
  prompt?: string | null;
  workdir?: string | null;
  parent_uuid?: string | null;
  llm_provider?: string | null;
  model?: string | null;
  context_length?: number | null;
  process_id?: number | null;
  hostname?: string | null;
  metadata?: unknown;
  status?: TaskStatus;
  created_at?: string;
  /** Default: now for a running task, else none. */
  started_at?: string | null;
  /** Default: none (a task made completed: as it ended). */
  completed_at?: string | null;
}

/** When a new row's run started and ended (NewTaskRow's defaults). */
export function runTimes(
  row: Pick<NewTaskRow, 'status' | 'started_at' | 'completed_at'>,
  now: string,
): { started_at: string | null; completed_at: string | null } {
  return {
    started_at:
      row.started_at !== undefined
        ? row.started_at
        : (row.status ?? 'running') === 'running'
          ? now
          : null,
    completed_at: row.completed_at ?? null,
  };
}

/** Counters added to a task after an event (seed 000 update_statistics). */
export interface StatIncrements {
  llm_calls?: number;
  tool_calls?: number;
  compressions?: number;
  messages?: number;
  summaries?: number;
  usage?: Partial<TokenUsage>;
}

/** Final figures recorded when a task stops, completes or fails (seed 001 §3.12). */
export interface FinalStats {
  total_messages: number;
  total_summaries: number;
  total_tool_calls: number;
  final_token_count: number;
  final_message_count: number;
}

/** The task table's sort columns (the UI contract owns the list). */
export const SORTABLE_COLUMNS = TASK_SORT_COLUMNS;
export type SortColumn = (typeof SORTABLE_COLUMNS)[number];

/**
 * What one model costs per token of each kind, in dollars: the price book's figures handed
 * to the index so it can sort and sum by cost (prices live in the app and config.yaml,
 * not in a column).
 */
export interface ModelRate {
  model: string;
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
}

export interface TaskQuery extends TaskFilter {
  sort?: SortColumn;
  /** What sort 'cost' prices rows with; without them 'cost' sorts by created_at. */
  costRates?: readonly ModelRate[];
  order?: 'asc' | 'desc';
  limit?: number;
  offset?: number;
}

export const CONTROL_ACTIONS = ['pause', 'stop', 'compact'] as const;
export type ControlAction = (typeof CONTROL_ACTIONS)[number];

/** The most rows one page may ask for. */
export const MAX_QUERY_LIMIT = 10_000;

/** The sort, order and paging of `q`, made safe (an unknown column sorts by created_at). */
export function pageOf(q: TaskQuery): {
  sort: SortColumn;
  order: 'ASC' | 'DESC';
  limit: number;
  offset: number;
} {
  return {
    sort:
      q.sort && (SORTABLE_COLUMNS as readonly string[]).includes(q.sort) ? q.sort : 'created_at',
    order: q.order === 'asc' ? 'ASC' : 'DESC',
    limit: Math.max(0, Math.min(q.limit ?? 100, MAX_QUERY_LIMIT)),
    offset: Math.max(0, q.offset ?? 0),
  };
}

/**
 * addStats' increments: each value and the counter columns it adds to. Shared so both
 * implementations set exactly the same columns.
 */
export function statIncrements(
  inc: StatIncrements,
): { value: number; columns: readonly string[] }[] {
  const u = inc.usage ?? {};
  const all: [number, readonly string[]][] = [
    [inc.llm_calls ?? 0, ['llm_call_count']],
    [inc.tool_calls ?? 0, ['tool_call_count', 'total_tool_calls']],
    [inc.compressions ?? 0, ['compression_count']],
    [inc.summaries ?? 0, ['total_summaries']],
    [inc.messages ?? 0, ['total_messages']],
    [u.input_tokens ?? 0, ['input_tokens']],
    [u.output_tokens ?? 0, ['output_tokens']],
    [u.cache_creation_tokens ?? 0, ['cache_creation_tokens']],
    [u.cache_read_tokens ?? 0, ['cache_read_tokens']],
    [u.total_tokens ?? (u.input_tokens ?? 0) + (u.output_tokens ?? 0), ['total_tokens']],
  ];
  return all.filter(([value]) => value !== 0).map(([value, columns]) => ({ value, columns }));
}

/** Every stored column of the tasks table (the generated ones, repository and task_identifier, are derived). */
export const INSERTABLE_COLUMNS = [
  'uuid',
  'status',
  'title',
  'prompt',
  'workdir',
  'parent_uuid',
  'task_source',
  'owner',
  'repo',
  'task_type',
  'task_id',
  'user',
  'created_at',
  'started_at',
  'updated_at',
  'completed_at',
  'process_id',
  'hostname',
  'llm_provider',
  'model',
  'context_length',
  ...FIGURE_COLUMNS,
  'error_message',
  'metadata',
  'agent',
  'git_branch',
] as const satisfies readonly (keyof TaskRow)[];
