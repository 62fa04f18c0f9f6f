import path from 'node:path';
import type { MessageRecord } from '../../shared/task-types';
import { OffsetIndex } from '../jsonl/offset-index';
import { readLinesSync } from '../jsonl/line-reader';
import { TASK_FILES } from '../store/contexts-layout';
import { asMessageRecord } from '../store/message-shape';
import { activeRecords, allRecords, type CompactionRecord } from './compaction-record';
import { REASONING_NAME } from '../import/types';
import { LineAtOffset } from './line-at-offset';
import { entryFromRecord, inlineEntry, type PlanItem, type ViewEntry } from './view';

/**
 * The effective context of a task, rebuilt from the source of truth: the newest compaction
 * still in effect gives the plan up to its `through_seq`, and every later message that no
 * compaction created follows as it is. With no compaction, that is every message.
 * The view is bounded by what the model can take, so it is held in memory while a
 * compaction works on it; the history itself is never loaded.
 */
export function readView(
  dir: string,
  options: { readonly?: boolean } = {},
): { view: ViewEntry[]; latest: CompactionRecord | undefined; lastSeq: number } {
  const file = path.join(dir, TASK_FILES.messages);
  const index = OffsetIndex.open(file, path.join(dir, TASK_FILES.messagesIndex), {
    readonly: options.readonly ?? true,
  });
  try {
    const latest = activeRecords(dir).records.at(-1);
    const view: ViewEntry[] = latest ? planEntries(file, index, latest.plan) : [];
    const from = (latest?.through_seq ?? 0) + 1;
    if (from <= index.count) {
      for (const line of readLinesSync(file, { start: index.offsetOf(from), firstLineNo: from })) {
        if (!('text' in line) || line.partial) continue;
        const record = parseRecord(line.text);
        if (record && record.compaction_id === undefined && !record.history_only)
          view.push(entryFromRecord(record));
      }
    }
    return { view, latest, lastSeq: index.count };
  } finally {
    index.close();
  }
}

/**
 * The context as it was right after message `at`: the newest compaction in effect whose
 * plan accounts for no later message, then the messages after it up to `at`. A message an
 * import marked history-only because a LATER compaction of the agent replaced it was in
 * the context then, so it counts; reasoning never does (it is history-only by nature).
 */
export function readViewAt(
  dir: string,
  at: number,
): { view: ViewEntry[]; base: CompactionRecord | undefined; lastSeq: number } {
  const file = path.join(dir, TASK_FILES.messages);
  const index = OffsetIndex.open(file, path.join(dir, TASK_FILES.messagesIndex), {
    readonly: true,
  });
  try {
    const upTo = Math.min(at, index.count);
    const base = activeRecords(dir)
      .records.filter((r) => r.through_seq <= upTo)
      .at(-1);
    const laterSpans = allRecords(dir)
      .filter((r) => !r.undone && (r.through_seq ?? r.end_seq) > upTo)
      .map((r) => [r.start_seq, r.end_seq] as const);
    const view: ViewEntry[] = base ? planEntries(file, index, base.plan) : [];
    const from = (base?.through_seq ?? 0) + 1;
    if (from <= upTo) {
      for (const line of readLinesSync(file, { start: index.offsetOf(from), firstLineNo: from })) {
        if (!('text' in line) || line.partial) continue;
        const record = parseRecord(line.text);
        if (!record) continue;
        if (record.seq > upTo) break;
        if (record.compaction_id !== undefined) continue;
        const leftLater =
          record.name !== REASONING_NAME &&
          laterSpans.some(([start, end]) => record.seq >= start && record.seq <= end);
        if (!record.history_only || leftLater) view.push(entryFromRecord(record));
      }
    }
    return { view, base, lastSeq: index.count };
  } finally {
    index.close();
  }
}

/** Plan items with their messages, read by seq through the offset index. */
export function planEntries(
  file: string,
  index: OffsetIndex,
  plan: readonly PlanItem[],
): ViewEntry[] {
  const reader = index.count > 0 ? new LineAtOffset(file) : undefined;
  try {
    return plan.flatMap((item): ViewEntry[] => {
      if ('inline' in item) return [inlineEntry(item.inline)];
      if (!reader || item.seq < 1 || item.seq > index.count) return [];
      const record = parseRecord(reader.read(index.offsetOf(item.seq)));
      return record ? [entryFromRecord(record, item.content)] : [];
    });
  } finally {
    reader?.close();
  }
}

/** A message of the history, or undefined for a line that is not one (reported by the readers). */
function parseRecord(text: string): MessageRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const record = asMessageRecord(value);
  return record.ok ? record.value : undefined;
}
