import path from 'node:path';
import type { MessageRecord } from '../../shared/task-types';
import { OffsetIndex } from '../jsonl/offset-index';
import { readLinesSync } from '../jsonl/line-reader';
import { RecordLogReader } from '../store/record-log-reader';
import { TASK_FILES } from '../store/contexts-layout';
import { CwbError } from '../errors';
import { allRecords, type CompactionRecord, type UndoEntry } from './compaction-record';
import { planEntries } from './read-view';
import { repairToolPairs } from './tool-pairing';
import { entryFromRecord, type ViewEntry } from './view';
import { REASONING_NAME } from '../import/types';

export interface ContextAroundRecord {
  record: CompactionRecord & { undone: boolean };
  /** The record the compaction worked on (the one in effect just before it), if any. */
  previousId: number | null;
  /** The context just before the compaction, as the model saw it. */
  before: ViewEntry[];
  /** The context the compaction produced. */
  after: ViewEntry[];
}

/**
 * The contexts on either side of a compaction record, rebuilt from summaries.jsonl,
 * undone.jsonl and messages.jsonl alone (nothing else is trusted to still describe the past):
 *
 * - after: the record's own plan;
 * - before: the plan of the record that was in effect when this one was written (the latest
 *   earlier record not yet undone at that moment), followed by every message appended after
 *   that plan's through_seq, up to this record's through_seq, that no compaction created.
 *
 * Undo and rewind never delete, so this works for records that are undone since.
 */
export function contextAroundRecord(dir: string, id: number): ContextAroundRecord {
  const records = allRecords(dir);
  const record = records.find((r) => r.id === id);
  if (!record) throw new CwbError('not_found', `no compaction ${id} in ${dir}`);
  if (!Array.isArray(record.plan)) {
    throw new CwbError(
      'bad_input',
      `compaction ${id} has no plan (an earlier version imported it): import or sync the session again to rebuild its contexts`,
    );
  }
  const undoneAt = undoTimes(dir, record);
  const previous = records
    .filter((r) => r.id < id && Array.isArray(r.plan))
    .filter((r) => {
      const at = undoneAt.get(r.id);
      return at === undefined || at > record.created_at;
    })
    .at(-1);
  return {
    record,
    previousId: previous?.id ?? null,
    // The engine repairs tool pairs before a strategy sees the context; so does this.
    before: repairToolPairs(
      record.agent_compaction === true
        ? viewAfter(dir, previous, record.end_seq, { agentCompacted: true })
        : viewAfter(dir, previous, record.through_seq),
    ),
    after: viewAfter(dir, record, record.through_seq),
  };
}

/**
 * The context as `base` left it (its plan), followed by every later message up to
 * `throughSeq` that no compaction created — the context in effect when `base` was the
 * newest compaction. With no base, every message up to `throughSeq`.
 */
export function viewAfter(
  dir: string,
  base: CompactionRecord | undefined,
  throughSeq: number,
  options: { agentCompacted?: boolean } = {},
): ViewEntry[] {
  const file = path.join(dir, TASK_FILES.messages);
  const index = OffsetIndex.open(file, path.join(dir, TASK_FILES.messagesIndex), {
    readonly: true,
  });
  try {
    const view = base ? planEntries(file, index, base.plan) : [];
    const from = (base?.through_seq ?? 0) + 1;
    const through = Math.min(throughSeq, index.count);
    if (from <= through) {
      for (const line of readLinesSync(file, { start: index.offsetOf(from), firstLineNo: from })) {
        if (!('text' in line) || line.partial) continue;
        const message = parse(line.text);
        if (!message) continue;
        if (message.seq > through) break;
        if (message.compaction_id === undefined && inContext(message, options.agentCompacted))
          view.push(entryFromRecord(message));
      }
    }
    return view;
  } finally {
    index.close();
  }
}

/**
 * When each record was undone (ISO time, comparable as text with created_at). A rewind
 * undoes the compactions after its seq just before writing its own record; those were in
 * the context the rewind started from, so for the rewind's own "before" they still count.
 */
function undoTimes(dir: string, record: CompactionRecord): Map<number, string> {
  const undone = new RecordLogReader<UndoEntry>(path.join(dir, TASK_FILES.undone)).list(
    0,
    Number.MAX_SAFE_INTEGER,
  );
  const seq = record.strategy === 'rewind' ? record.params?.['seq'] : undefined;
  const times = new Map<number, string>();
  for (const u of undone.records) {
    const byThisRewind =
      seq !== undefined &&
      u.reason.startsWith(`rewind to seq ${String(seq)}`) &&
      u.undone_at <= record.created_at &&
      Date.parse(record.created_at) - Date.parse(u.undone_at) < 5_000;
    if (!byThisRewind && !times.has(u.id)) times.set(u.id, u.undone_at);
  }
  return times;
}

/**
 * Whether a message was in the context. Messages an agent compacted itself are history-only
 * since (import and sync flag them so); before that compaction they were in its context,
 * but for its reasoning, which no agent is shown again.
 */
function inContext(message: MessageRecord, agentCompacted = false): boolean {
  if (!message.history_only) return true;
  return agentCompacted && message.name !== REASONING_NAME;
}

function parse(text: string): MessageRecord | undefined {
  try {
    const value = JSON.parse(text) as MessageRecord;
    return typeof value.seq === 'number' && typeof value.role === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
