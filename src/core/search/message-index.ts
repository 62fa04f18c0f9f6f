import fs from 'node:fs';
import path from 'node:path';
import type { MessageRecord, TaskRow } from '../../shared/task-types';
import { writeTx, type Db } from '../db/open-database';
import { OffsetIndex } from '../jsonl/offset-index';
import { readLinesSync } from '../jsonl/line-reader';
import { TASK_FILES } from '../store/contexts-layout';
import { asMessageRecord } from '../store/message-shape';
import { isPartial, parseEntry } from '../store/message-window';
import { indexedText } from './message-text';
import { addUsageHours, hourOf, type HourUsage } from '../usage/usage-hours';
import { RecordLogReader } from '../store/record-log-reader';
import { compactionModel, type CompactionUsageRecord } from '../cost/task-cost';
import type { SummaryRecord } from '../../shared/task-types';

/**
 * The search index over every task's messages (schema: messages_search and its state and
 * dirty tables, src/core/db/schema.ts). Writers never tokenize: a trigger marks a task dirty
 * whenever its message count changes — a task process's step, an import, a source sync
 * alike — and this catch-up reads the new lines from the task's messages.jsonl and indexes
 * them in short write transactions. The backfill of tasks that existed before the index is
 * the same catch-up; each batch commits with its cursor, so it resumes where it stopped.
 */

/** A message's index rowid is its task's rowid times this, plus its seq. */
export const SEQ_SPAN = 2 ** 32;

/** Lines and bytes read per write transaction: a few milliseconds of the write lock. */
const BATCH_MESSAGES = 400;
const BATCH_BYTES = 2 * 1024 * 1024;
/** Dirty tasks looked at per round. */
const TASKS_PER_ROUND = 200;

export function messageRowid(taskRowid: number, seq: number): number {
  return taskRowid * SEQ_SPAN + seq;
}

export interface IndexProgress {
  /** Messages indexed by this call. */
  indexed: number;
  /** Tasks with messages still to index when the call returned. */
  remaining: number;
}

/** Where a task's folder is (ContextStore.taskPath). */
export type TaskDirOf = (row: Pick<TaskRow, 'uuid' | 'status'>) => string;

export interface DirtyTask {
  /** The task's rowid (tasks.db) or seq (PostgreSQL). */
  task: number;
  uuid: string;
  status: TaskRow['status'];
  agent: string;
  seq: number;
  /** The highest summaries.jsonl record id whose usage is in usage_compactions. */
  summaries: number;
  /** The row's count of compaction records. */
  total_summaries: number;
  /** PostgreSQL: the dirty row's change count when read (settle clears it only if unchanged). */
  mark?: number;
}

/** One compaction record's LLM call, as usage_compactions holds it. */
export interface CompactionUsageRow extends HourUsage {
  id: number;
  model: string | null;
}

/**
 * Where the catch-up writes: tasks.db (below) or a fleet's PostgreSQL
 * (src/core/db/pg-message-index.ts). The reading of task files is the same for both.
 */
export interface MessageIndexTarget {
  /** Tasks with messages not yet in the index. */
  pending(): number;
  /** Dirty tasks this process may index, by task id after `after`. */
  dirty(after: number, limit: number): DirtyTask[];
  /** Drops the dirty mark of a task whose row is gone. */
  forget(task: number): void;
  /** Writes a batch if the task's cursor is still `from`; false when another process moved it. */
  writeBatch(t: DirtyTask, from: number, batch: Batch): boolean;
  /** Writes compaction usage if the task's record cursor is still `t.summaries`. */
  writeCompactions(t: DirtyTask, rows: CompactionUsageRow[], last: number): boolean;
  /** Clears the dirty mark once the row's counts are no more than what is indexed. */
  settle(t: DirtyTask, seq: number, summaries: number): void;
}

/** How many tasks have messages not yet in the index. */
export function pendingTasks(db: Db): number {
  return (db.prepare('SELECT COUNT(*) AS n FROM messages_search_dirty').get() as { n: number }).n;
}

/** Indexes the messages of tasks.db's dirty tasks (see indexPendingMessagesInto). */
export function indexPendingMessages(
  db: Db,
  dirOf: TaskDirOf,
  options: { budgetMs?: number; onProgress?: (p: IndexProgress) => void } = {},
): IndexProgress {
  return indexPendingMessagesInto(sqliteTarget(db), dirOf, options);
}

/**
 * Indexes the messages of dirty tasks until none is left or `budgetMs` has passed (at least
 * one batch runs). Safe from several processes at once: a batch is written only when the
 * task's cursor is still where it was read, so no message is indexed twice.
 */
export function indexPendingMessagesInto(
  db: MessageIndexTarget,
  dirOf: TaskDirOf,
  options: { budgetMs?: number; onProgress?: (p: IndexProgress) => void } = {},
): IndexProgress {
  const budget = options.budgetMs ?? Number.POSITIVE_INFINITY;
  const started = performance.now();
  let indexed = 0;
  let after = 0;
  for (;;) {
    const tasks = db.dirty(after, TASKS_PER_ROUND);
    if (tasks.length === 0) break;
    for (const t of tasks) {
      after = t.task;
      indexed += indexTask(db, dirOf, t, () => performance.now() - started >= budget);
      if (performance.now() - started >= budget) {
        const progress = { indexed, remaining: db.pending() };
        options.onProgress?.(progress);
        return progress;
      }
    }
    options.onProgress?.({ indexed, remaining: db.pending() });
  }
  return { indexed, remaining: db.pending() };
}

/** Indexes one dirty task to its last complete line (or until `stop`); returns messages indexed. */
function indexTask(
  db: MessageIndexTarget,
  dirOf: TaskDirOf,
  t: DirtyTask,
  stop: () => boolean,
): number {
  if (t.uuid === null) {
    db.forget(t.task);
    return 0;
  }
  let dir: string;
  try {
    dir = dirOf(t);
  } catch {
    return 0; // another host's task this one cannot reach: left for a host that can
  }
  const file = path.join(dir, TASK_FILES.messages);
  if (!fs.existsSync(file)) {
    // Moved between status folders while we looked, or not written yet: the next call sees it.
    db.settle(t, t.seq, t.summaries);
    return 0;
  }
  let index: OffsetIndex;
  try {
    index = OffsetIndex.open(file, path.join(dir, TASK_FILES.messagesIndex), { readonly: true });
  } catch {
    return 0;
  }
  let seq = t.seq;
  let indexed = 0;
  try {
    while (seq < index.count) {
      const batch = readBatch(file, index, seq + 1);
      if (batch.lastSeq <= seq) break;
      if (!db.writeBatch(t, seq, batch)) return indexed; // another process got there first
      indexed += batch.rows.length;
      seq = batch.lastSeq;
      if (stop()) return indexed;
    }
  } catch {
    return indexed; // the folder moved mid-read (a task ending): the next call goes on
  } finally {
    index.close();
  }
  let summaries: number;
  try {
    summaries = indexCompactionUsage(db, t, dir);
  } catch {
    return indexed; // the folder moved mid-read: the next call goes on
  }
  db.settle(t, seq, summaries);
  return indexed;
}

export interface Batch {
  rows: { seq: number; body: string; role: string; tool: string; timestamp: string | null }[];
  usage: HourUsage[];
  lastSeq: number;
  chars: number;
}

function readBatch(file: string, index: OffsetIndex, from: number): Batch {
  const batch: Batch = { rows: [], usage: [], lastSeq: from - 1, chars: 0 };
  let bytes = 0;
  for (const entry of readLinesSync(file, { start: index.offsetOf(from), firstLineNo: from })) {
    if (isPartial(entry)) break;
    batch.lastSeq = entry.lineNo;
    bytes += entry.bytes;
    const parsed = parseEntry(entry, file, asMessageRecord);
    if (parsed.ok) {
      const text = indexedText(parsed.value);
      batch.chars += text.body.length;
      batch.rows.push({ seq: entry.lineNo, ...text, timestamp: parsed.value.timestamp ?? null });
      const usage = usageOf(parsed.value);
      if (usage) batch.usage.push(usage);
    }
    if (batch.rows.length >= BATCH_MESSAGES || bytes >= BATCH_BYTES) break;
  }
  return batch;
}

/** A message's own provider usage (our task processes record it on each reply). */
function usageOf(m: MessageRecord): HourUsage | undefined {
  const u = m.usage;
  const hour = hourOf(m.timestamp);
  if (!u || !hour) return undefined;
  return {
    hour,
    input_tokens: u.input_tokens ?? 0,
    output_tokens: u.output_tokens ?? 0,
    cache_read_tokens: u.cache_read_tokens ?? 0,
    cache_creation_tokens: u.cache_creation_tokens ?? 0,
  };
}

/** The catch-up's writes on tasks.db: each batch one write transaction with its cursor. */
export function sqliteTarget(db: Db): MessageIndexTarget {
  return {
    pending: () => pendingTasks(db),
    dirty: (after, limit) =>
      db
        .prepare(
          `SELECT d.task AS task, t.uuid AS uuid, t.status AS status, t.agent AS agent,
             COALESCE(s.seq, 0) AS seq, COALESCE(s.summaries, 0) AS summaries,
             COALESCE(t.total_summaries, 0) AS total_summaries
           FROM messages_search_dirty d
           LEFT JOIN tasks t ON t.rowid = d.task
           LEFT JOIN messages_search_state s ON s.task = d.task
           WHERE d.task > ? ORDER BY d.task LIMIT ?`,
        )
        .all(after, limit) as DirtyTask[],
    forget: (task) => void db.prepare('DELETE FROM messages_search_dirty WHERE task = ?').run(task),
    writeBatch: (t, from, batch) => writeBatch(db, t, from, batch),
    writeCompactions: (t, rows, last) => writeCompactions(db, t, rows, last),
    settle: (t, seq, summaries) => settleIfCurrent(db, t.task, seq, summaries),
  };
}

function writeBatch(db: Db, t: DirtyTask, from: number, batch: Batch): boolean {
  return writeTx(db, () => {
    const state = db.prepare('SELECT seq FROM messages_search_state WHERE task = ?').get(t.task) as
      { seq: number } | undefined;
    if ((state?.seq ?? 0) !== from) return false;
    const insert = db.prepare(
      'INSERT INTO messages_search (rowid, body, role, tool) VALUES (?, ?, ?, ?)',
    );
    for (const r of batch.rows) insert.run(messageRowid(t.task, r.seq), r.body, r.role, r.tool);
    db.prepare(
      `INSERT INTO messages_search_state (task, seq, chars) VALUES (?, ?, ?)
       ON CONFLICT (task) DO UPDATE SET seq = excluded.seq, chars = chars + excluded.chars`,
    ).run(t.task, batch.lastSeq, batch.chars);
    // Usage on messages is our own task processes' (imports and syncs record theirs as they
    // write, src/core/usage/usage-hours.ts), so an imported message is never counted twice.
    if (t.agent === '' && batch.usage.length > 0) addUsageHours(db, t.task, batch.usage);
    return true;
  });
}

/**
 * Records the LLM usage of the task's compactions written since the last call (their
 * records in summaries.jsonl, undone ones included: they were paid for), each at its
 * record's hour and on its model, as taskCost prices them. Returns the new cursor.
 */
function indexCompactionUsage(db: MessageIndexTarget, t: DirtyTask, dir: string): number {
  // Most catch-ups follow new messages of a task whose records are all read already.
  if (t.total_summaries <= t.summaries) return t.summaries;
  const file = path.join(dir, TASK_FILES.summaries);
  if (!fs.existsSync(file)) return t.summaries;
  const records = new RecordLogReader<SummaryRecord & CompactionUsageRecord>(file)
    .list(0, Number.MAX_SAFE_INTEGER)
    .records.filter((r) => r.id > t.summaries);
  if (records.length === 0) return t.summaries;
  const last = Math.max(...records.map((r) => r.id));
  const rows: CompactionUsageRow[] = [];
  for (const r of records) {
    const u = r.llm_usage;
    if (!u) continue;
    rows.push({
      id: r.id,
      hour: hourOf(r.created_at) ?? hourOf(r.timestamp) ?? '1970-01-01T00',
      model: compactionModel(r),
      input_tokens: u.input_tokens ?? 0,
      output_tokens: u.output_tokens ?? 0,
      cache_read_tokens: u.cache_read_tokens ?? 0,
      cache_creation_tokens: u.cache_creation_tokens ?? 0,
    });
  }
  return db.writeCompactions(t, rows, last) ? last : t.summaries;
}

function writeCompactions(
  db: Db,
  t: DirtyTask,
  rows: readonly CompactionUsageRow[],
  last: number,
): boolean {
  return writeTx(db, () => {
    const state = db
      .prepare('SELECT summaries FROM messages_search_state WHERE task = ?')
      .get(t.task) as { summaries: number } | undefined;
    if ((state?.summaries ?? 0) !== t.summaries) return false;
    const insert = db.prepare(
      `INSERT OR REPLACE INTO usage_compactions (task, id, hour, model, input_tokens,
         output_tokens, cache_read_tokens, cache_creation_tokens)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const r of rows)
      insert.run(
        t.task,
        r.id,
        r.hour,
        r.model,
        r.input_tokens,
        r.output_tokens,
        r.cache_read_tokens,
        r.cache_creation_tokens,
      );
    db.prepare(
      `INSERT INTO messages_search_state (task, summaries) VALUES (?, ?)
       ON CONFLICT (task) DO UPDATE SET summaries = excluded.summaries`,
    ).run(t.task, last);
    return true;
  });
}

/** Clears the task's dirty mark once its row's counts are no more than what is indexed. */
function settleIfCurrent(db: Db, task: number, seq: number, summaries: number): void {
  writeTx(db, () =>
    db
      .prepare(
        `DELETE FROM messages_search_dirty WHERE task = @task
         AND COALESCE((SELECT total_messages FROM tasks WHERE rowid = @task), 0) <= @seq
         AND COALESCE((SELECT total_summaries FROM tasks WHERE rowid = @task), 0) <= @summaries`,
      )
      .run({ task, seq, summaries }),
  );
}
