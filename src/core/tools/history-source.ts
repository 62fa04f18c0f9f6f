import path from 'node:path';
import type { MessageRecord } from '../../shared/task-types';
import { readLines } from '../jsonl/line-reader';
import { OffsetIndex } from '../jsonl/offset-index';
import { TASK_FILES } from '../store/contexts-layout';
import type { MessageStore } from '../store/message-store';
import { asMessageRecord } from '../store/message-shape';
import { isPartial, parseEntry } from '../store/message-window';

/** One line of messages.jsonl: the message, or why it could not be read. */
export type HistoryEntry =
  { seq: number; message: MessageRecord } | { seq: number; unreadable: string };

/** messages.jsonl as it was when opened: seqs 1..count. */
export interface History {
  readonly count: number;
  /** Messages `fromSeq`..`toSeq` in order, one at a time: only the current line is held. */
  entries(fromSeq: number, toSeq: number): AsyncGenerator<HistoryEntry>;
}

/**
 * Runs `use` over the task's history through a read-only offset index of its own, never the
 * writer's, so it reads the same way beside a process that is appending: messages appended
 * after opening, and a line still being written, are left for the next call.
 */
export async function withHistory<T>(
  messages: MessageStore,
  use: (history: History) => Promise<T>,
): Promise<T> {
  const file = messages.messagesPath;
  const index = OffsetIndex.open(file, path.join(messages.dir, TASK_FILES.messagesIndex), {
    readonly: true,
  });
  try {
    return await use({
      count: index.count,
      entries: (fromSeq, toSeq) => entries(file, index, fromSeq, toSeq),
    });
  } finally {
    index.close();
  }
}

async function* entries(
  file: string,
  index: OffsetIndex,
  fromSeq: number,
  toSeq: number,
): AsyncGenerator<HistoryEntry> {
  const last = Math.min(toSeq, index.count);
  if (fromSeq < 1 || fromSeq > last) return;
  const lines = readLines(file, {
    start: index.offsetOf(fromSeq),
    // seq is the line number, so the index also says where the range ends.
    ...(last < index.count && { end: index.offsetOf(last + 1) }),
    firstLineNo: fromSeq,
  });
  for await (const entry of lines) {
    if (entry.lineNo > last || isPartial(entry)) break;
    const parsed = parseEntry(entry, file, asMessageRecord);
    yield parsed.ok
      ? { seq: entry.lineNo, message: parsed.value }
      : { seq: entry.lineNo, unreadable: parsed.bad.error };
  }
}
