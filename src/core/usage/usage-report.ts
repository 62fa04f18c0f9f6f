import type {
  UsageReport,
  UsageReportInput,
  UsageRow,
  UsageTokens,
  UsageTopSession,
} from '../../shared/api/usage-api';
import type { TaskRow } from '../../shared/task-types';
import type { Db } from '../db/open-database';
import type { PriceBook } from '../cost/price-book';
import { hourOf, type HourUsage } from './usage-hours';
import { localDayOf, weekOf } from './usage-days';

type Options = Required<Pick<UsageReportInput, 'by' | 'top'>> &
  Omit<UsageReportInput, 'by' | 'top'>;

export type TaskFacts = Pick<
  TaskRow,
  | 'uuid'
  | 'title'
  | 'agent'
  | 'model'
  | 'repository'
  | 'input_tokens'
  | 'output_tokens'
  | 'cache_read_tokens'
  | 'cache_creation_tokens'
  | 'created_at'
  | 'updated_at'
  | 'completed_at'
> & { task: number };

/** A share of one task's usage placed at one hour. */
interface Piece {
  task: TaskFacts;
  hour: string;
  tokens: UsageTokens;
  /** The model it ran on when not the task's (a compaction's own call on another model). */
  model?: string | null;
}

/** The model a piece is priced and grouped on. */
function modelOf(p: Piece): string | null {
  return p.model === undefined || p.model === null ? p.task.model : p.model;
}

/**
 * Usage over time from tasks.db: each task's counters (what its cost is computed from,
 * src/core/cost) spread over the hours usage_hours recorded, and what the hours do not
 * account for placed at the task's last activity. The pieces of a task add up to its
 * counters exactly, so days, weeks, models and agents all add up to the tasks' own costs.
 * Usage on a model without a price is counted apart (`unknown_tokens`), never as $0.
 */
export function usageReport(db: Db, book: PriceBook, o: Options): UsageReport {
  return usageReportOf(sqliteUsageRows(db), book, o);
}

/** What a report reads from an index: tasks.db (below) or PostgreSQL (pg-usage-rows.ts). */
export interface UsageRows {
  /** Tasks with usage (counters or compactions), the agent and repository filters applied. */
  tasks(filter: { agent?: string; repo?: string }): TaskFacts[];
  /** usage_hours' rows. */
  hours(): Iterable<HourUsage & { task: number }>;
  /** usage_compactions' rows. */
  compactions(): Iterable<HourUsage & { task: number; model: string | null }>;
}

/** The same report from any index's rows. */
export function usageReportOf(source: UsageRows, book: PriceBook, o: Options): UsageReport {
  const timeZone = o.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const pieces = allPieces(source, o).filter((p) => {
    const day = localDayOf(p.hour, timeZone);
    return (!o.since || day >= o.since) && (!o.until || day <= o.until);
  });
  const keyOf = (p: Piece): string => {
    switch (o.by) {
      case 'day':
        return localDayOf(p.hour, timeZone);
      case 'week':
        return weekOf(localDayOf(p.hour, timeZone));
      case 'month':
        return localDayOf(p.hour, timeZone).slice(0, 7);
      case 'model':
        return modelOf(p) || '(none)';
      case 'agent':
        return agentName(p.task.agent);
      case 'repo':
        return p.task.repository || '(none)';
    }
  };
  const rows = new Map<string, Acc>();
  const total = new Acc('');
  const perTask = new Map<number, TaskTotal>();
  for (const p of pieces) {
    const key = keyOf(p);
    let row = rows.get(key);
    if (!row) rows.set(key, (row = new Acc(key)));
    const priced = price(book, p);
    row.add(p, priced);
    total.add(p, priced);
    if (o.split)
      row.split(o.split === 'model' ? modelOf(p) || '(none)' : agentName(p.task.agent), priced, p);
    const t = perTask.get(p.task.task) ?? { task: p.task, tokens: zero(), usd: 0 };
    addTokens(t.tokens, p.tokens);
    t.usd = t.usd === null || priced.usd === null ? null : t.usd + priced.usd;
    perTask.set(p.task.task, t);
  }
  const byTime = o.by === 'day' || o.by === 'week' || o.by === 'month';
  const sorted = [...rows.values()]
    .map((r) => r.row(o.split !== undefined))
    .sort((a, b) =>
      byTime ? a.key.localeCompare(b.key) : b.cost.usd - a.cost.usd || a.key.localeCompare(b.key),
    );
  const { key: _key, parts: _parts, ...totals } = total.row(false);
  return {
    by: o.by,
    since: o.since ?? null,
    until: o.until ?? null,
    timeZone,
    rows: sorted,
    total: totals,
    top: topSessions(perTask, o.top),
    prices:
      book.overrides > 0 ? `${book.version} + ${book.overrides} from config.yaml` : book.version,
  };
}

export function agentName(agent: string | undefined): string {
  return agent || 'cwb';
}

function zero(): UsageTokens {
  return { input: 0, output: 0, cache_read: 0, cache_write: 0 };
}

function addTokens(into: UsageTokens, t: UsageTokens): void {
  into.input += t.input;
  into.output += t.output;
  into.cache_read += t.cache_read;
  into.cache_write += t.cache_write;
}

function sumOf(t: UsageTokens): number {
  return t.input + t.output + t.cache_read + t.cache_write;
}

interface Priced {
  usd: number | null;
  saved: number;
}

function price(book: PriceBook, p: Piece): Priced {
  const cost = book.costOf(
    {
      input_tokens: p.tokens.input,
      output_tokens: p.tokens.output,
      cache_read_tokens: p.tokens.cache_read,
      cache_creation_tokens: p.tokens.cache_write,
    },
    modelOf(p),
  );
  const entry = cost.usd === null ? undefined : book.priceOf(modelOf(p));
  const saved = entry ? (p.tokens.cache_read * (entry.input - entry.cache_read)) / 1_000_000 : 0;
  return { usd: cost.usd, saved };
}

class Acc {
  private readonly tasks = new Set<number>();
  private readonly tokens = zero();
  private usd = 0;
  private unknown = 0;
  private saved = 0;
  private readonly parts = new Map<string, { key: string; usd: number; unknown_tokens: number }>();

  constructor(readonly key: string) {}

  add(p: Piece, priced: Priced): void {
    this.tasks.add(p.task.task);
    addTokens(this.tokens, p.tokens);
    if (priced.usd === null) this.unknown += sumOf(p.tokens);
    else this.usd += priced.usd;
    this.saved += priced.saved;
  }

  split(key: string, priced: Priced, p: Piece): void {
    const part = this.parts.get(key) ?? { key, usd: 0, unknown_tokens: 0 };
    if (priced.usd === null) part.unknown_tokens += sumOf(p.tokens);
    else part.usd += priced.usd;
    this.parts.set(key, part);
  }

  row(withParts: boolean): UsageRow {
    return {
      key: this.key,
      tasks: this.tasks.size,
      tokens: { ...this.tokens },
      cost: { usd: this.usd, unknown_tokens: this.unknown, saved_usd: this.saved },
      ...(withParts && { parts: [...this.parts.values()].sort((a, b) => b.usd - a.usd) }),
    };
  }
}

/** tasks.db's rows for a report. */
export function sqliteUsageRows(db: Db): UsageRows {
  return {
    tasks(filter) {
      const where: string[] = [
        `((input_tokens + output_tokens + cache_read_tokens + cache_creation_tokens) > 0
          OR rowid IN (SELECT task FROM usage_compactions))`,
      ];
      const params: Record<string, unknown> = {};
      if (filter.agent !== undefined) {
        where.push('agent = @agent');
        params.agent = filter.agent;
      }
      if (filter.repo) {
        where.push('(repo = @repo OR repository = @repo)');
        params.repo = filter.repo;
      }
      return db
        .prepare(
          `SELECT rowid AS task, uuid, title, agent, model, repository, input_tokens, output_tokens,
             cache_read_tokens, cache_creation_tokens, created_at, updated_at, completed_at
           FROM tasks WHERE ${where.join(' AND ')}`,
        )
        .all(params) as TaskFacts[];
    },
    hours: () =>
      db
        .prepare(
          'SELECT task, hour, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens FROM usage_hours',
        )
        .iterate() as Iterable<HourUsage & { task: number }>,
    compactions: () =>
      db
        .prepare(
          `SELECT task, hour, model, input_tokens, output_tokens, cache_read_tokens,
             cache_creation_tokens FROM usage_compactions`,
        )
        .iterate() as Iterable<HourUsage & { task: number; model: string | null }>,
  };
}

/** Every task's usage as pieces by hour (agent and repository filters applied by the source). */
function allPieces(source: UsageRows, o: Options): Piece[] {
  const tasks = source.tasks({
    ...(o.agent !== undefined && { agent: o.agent }),
    ...(o.repo !== undefined && { repo: o.repo }),
  });
  const hoursOf = new Map<number, HourUsage[]>();
  for (const h of source.hours()) {
    const list = hoursOf.get(h.task);
    if (list) list.push(h);
    else hoursOf.set(h.task, [h]);
  }
  const compactionsOf = compactionPieces(source);
  return tasks.flatMap((t) => [
    ...piecesOf(t, hoursOf.get(t.task) ?? []),
    ...(compactionsOf.get(t.task) ?? []).map((c) => ({ ...c, task: t })),
  ]);
}

/**
 * The compactions' own LLM calls by task (usage_compactions, filled by the search catch-up
 * from summaries.jsonl): each at its record's hour and on its model, as taskCost counts
 * them beside the task's counters.
 */
function compactionPieces(source: UsageRows): Map<number, Omit<Piece, 'task'>[]> {
  const byTask = new Map<number, Omit<Piece, 'task'>[]>();
  for (const c of source.compactions()) {
    const piece = {
      hour: c.hour,
      model: c.model,
      tokens: {
        input: c.input_tokens,
        output: c.output_tokens,
        cache_read: c.cache_read_tokens,
        cache_write: c.cache_creation_tokens,
      },
    };
    const list = byTask.get(c.task);
    if (list) list.push(piece);
    else byTask.set(c.task, [piece]);
  }
  return byTask;
}

/**
 * A task's usage by hour: the recorded hours, and the rest of its counters at its last
 * activity. Hours that claim more of a kind than the counters hold (a counter corrected
 * since) are not trusted: the whole task goes to its last activity.
 */
export function piecesOf(task: TaskFacts, hours: readonly HourUsage[]): Piece[] {
  const counters: UsageTokens = {
    input: task.input_tokens,
    output: task.output_tokens,
    cache_read: task.cache_read_tokens,
    cache_write: task.cache_creation_tokens,
  };
  const recorded = zero();
  for (const h of hours)
    addTokens(recorded, {
      input: h.input_tokens,
      output: h.output_tokens,
      cache_read: h.cache_read_tokens,
      cache_write: h.cache_creation_tokens,
    });
  const rest: UsageTokens = {
    input: counters.input - recorded.input,
    output: counters.output - recorded.output,
    cache_read: counters.cache_read - recorded.cache_read,
    cache_write: counters.cache_write - recorded.cache_write,
  };
  const last =
    hourOf(task.completed_at) ??
    hourOf(task.updated_at) ??
    hourOf(task.created_at) ??
    '1970-01-01T00';
  if (Object.values(rest).some((n) => n < 0)) return [{ task, hour: last, tokens: counters }];
  const pieces: Piece[] = hours.map((h) => ({
    task,
    hour: h.hour,
    tokens: {
      input: h.input_tokens,
      output: h.output_tokens,
      cache_read: h.cache_read_tokens,
      cache_write: h.cache_creation_tokens,
    },
  }));
  if (sumOf(rest) > 0) pieces.push({ task, hour: last, tokens: rest });
  return pieces;
}

interface TaskTotal {
  task: TaskFacts;
  tokens: UsageTokens;
  /** The sum of its priced pieces; null when any is on a model without a price. */
  usd: number | null;
}

function topSessions(perTask: Map<number, TaskTotal>, n: number): UsageTopSession[] {
  const all = [...perTask.values()].map(({ task, tokens, usd }) => ({
    uuid: task.uuid,
    title: task.title,
    agent: task.agent ?? '',
    model: task.model,
    tokens,
    usd,
  }));
  return all
    .sort((a, b) => (b.usd ?? -1) - (a.usd ?? -1) || sumOf(b.tokens) - sumOf(a.tokens))
    .slice(0, n);
}
