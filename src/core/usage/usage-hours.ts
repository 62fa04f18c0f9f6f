import type { TokenUsage } from '../../shared/task-types';
import type { Db } from '../db/open-database';
import { prepared } from '../db/prepared';
import { isoTimestamp } from '../iso-timestamp';

/** Provider usage within one UTC hour ('YYYY-MM-DDTHH'). */
export interface HourUsage {
  hour: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_creation_tokens: number;
}

/** The UTC hour of a timestamp ('YYYY-MM-DDTHH'), or undefined when it is not a date. */
export function hourOf(timestamp: string | null | undefined): string | undefined {
  if (!timestamp) return undefined;
  // Our own timestamps are already UTC ISO text: no Date needed.
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(timestamp))
    return timestamp.slice(0, 13);
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) ? undefined : isoTimestamp(new Date(ms)).slice(0, 13);
}

/** Adds usage to usage_hours (inside the caller's write transaction). */
export function addUsageHours(db: Db, task: number, hours: readonly HourUsage[]): void {
  const upsert = prepared(
    db,
    `INSERT INTO usage_hours (task, hour, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens)
     VALUES (@task, @hour, @input_tokens, @output_tokens, @cache_read_tokens, @cache_creation_tokens)
     ON CONFLICT (task, hour) DO UPDATE SET
       input_tokens = input_tokens + excluded.input_tokens,
       output_tokens = output_tokens + excluded.output_tokens,
       cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
       cache_creation_tokens = cache_creation_tokens + excluded.cache_creation_tokens`,
  );
  for (const h of hours) upsert.run({ task, ...h });
}

/** Adds a task's hours by its uuid (import and sync know the uuid, not the rowid). */
export function addUsageHoursOf(db: Db, uuid: string, hours: readonly HourUsage[]): void {
  if (hours.length === 0) return;
  const row = prepared(db, 'SELECT rowid AS task FROM tasks WHERE uuid = ?').get(uuid) as
    { task: number } | undefined;
  if (row) addUsageHours(db, row.task, hours);
}

/**
 * Usage an importer or a sync sees, by the hour of the message it belongs to. Transcripts
 * give an LLM call's usage next to the reply (before it in Claude Code, after it in Codex),
 * so a call is placed at the newest message written when it is counted, or, before any
 * message, at the first one. Hours are a best attribution: the usage report places whatever
 * a task's counters hold beyond them at the task's last activity, so totals stay exact.
 */
export class HourlyUsage {
  private readonly hours = new Map<string, HourUsage>();
  private lastHour: string | undefined;
  private pending: Partial<TokenUsage>[] = [];

  /** A message was written at `timestamp`. */
  message(timestamp: string | undefined): void {
    const hour = hourOf(timestamp);
    if (!hour) return;
    this.lastHour = hour;
    for (const usage of this.pending) this.add(hour, usage);
    this.pending = [];
  }

  /** An LLM call's usage. */
  usage(usage: Partial<TokenUsage>): void {
    if (this.lastHour) this.add(this.lastHour, usage);
    else this.pending.push(usage);
  }

  /** The hours counted so far, emptied (what a commit writes). */
  take(): HourUsage[] {
    const all = [...this.hours.values()];
    this.hours.clear();
    return all;
  }

  private add(hour: string, usage: Partial<TokenUsage>): void {
    let h = this.hours.get(hour);
    if (!h) {
      h = {
        hour,
        input_tokens: 0,
        output_tokens: 0,
        cache_read_tokens: 0,
        cache_creation_tokens: 0,
      };
      this.hours.set(hour, h);
    }
    h.input_tokens += usage.input_tokens ?? 0;
    h.output_tokens += usage.output_tokens ?? 0;
    h.cache_read_tokens += usage.cache_read_tokens ?? 0;
    h.cache_creation_tokens += usage.cache_creation_tokens ?? 0;
  }
}
