import type { CurrentMessage, MessageRecord } from '../../shared/task-types';
import type { OffsetIndex } from '../jsonl/offset-index';
import { readLinesSync } from '../jsonl/line-reader';
import path from 'node:path';
import { asCurrentMessage, asMessageRecord, type ShapeResult } from './message-shape';

/** A line read back from a JSONL file that could not be understood, with where it sits. */
export interface BadLine {
  file: string;
  lineNo: number;
  error: string;
}

export interface MessageWindow {
  messages: MessageRecord[];
  bad: BadLine[];
  /** Messages in the whole file. */
  total: number;
}

export interface CurrentWindow {
  /** `index` is the 1-based line of current.jsonl. */
  messages: (CurrentMessage & { index: number })[];
  bad: BadLine[];
  total: number;
}

/**
 * Up to `limit` messages of messages.jsonl from `fromSeq`, found through the offset index:
 * only the bytes of the window are read. A last line still being written is not returned.
 */
export function readMessageWindow(
  file: string,
  index: OffsetIndex,
  fromSeq: number,
  limit: number,
): MessageWindow {
  const messages: MessageRecord[] = [];
  const bad: BadLine[] = [];
  const total = index.count;
  const first = Math.max(1, Math.floor(fromSeq));
  if (limit > 0 && first <= total) {
    for (const entry of readLinesSync(file, { start: index.offsetOf(first), firstLineNo: first })) {
      if (messages.length + bad.length >= limit || isPartial(entry)) break;
      const parsed = parseEntry(entry, file, asMessageRecord);
      if (parsed.ok) messages.push(parsed.value);
      else bad.push(parsed.bad);
    }
  }
  return { messages, bad, total };
}

/** Lines of current.jsonl from `fromIndex` (1-based). current.jsonl is bounded by the model's window, so it is scanned. */
export function readCurrentWindow(file: string, fromIndex: number, limit: number): CurrentWindow {
  const messages: CurrentWindow['messages'] = [];
  const bad: BadLine[] = [];
  let total = 0;
  for (const entry of readLinesSync(file)) {
    if (isPartial(entry)) break;
    total++;
    if (entry.lineNo < fromIndex || messages.length + bad.length >= limit) continue;
    const parsed = parseEntry(entry, file, asCurrentMessage);
    if (parsed.ok) messages.push({ ...parsed.value, index: entry.lineNo });
    else bad.push(parsed.bad);
  }
  return { messages, bad, total };
}

type LineEntry = ReturnType<typeof readLinesSync> extends Generator<infer E> ? E : never;

export function isPartial(entry: LineEntry): boolean {
  return 'text' in entry && entry.partial === true;
}

/**
 * Parses one line; with `shape`, a line that is JSON but not what the file holds (a message)
 * is a bad line too, so readers never hand on a value of the wrong shape.
 */
export function parseEntry(
  entry: LineEntry,
  file: string,
): { ok: true; value: unknown } | { ok: false; bad: BadLine };
export function parseEntry<T>(
  entry: LineEntry,
  file: string,
  shape: (value: unknown) => ShapeResult<T>,
): { ok: true; value: T } | { ok: false; bad: BadLine };
export function parseEntry(
  entry: LineEntry,
  file: string,
  shape?: (value: unknown) => ShapeResult<unknown>,
): { ok: true; value: unknown } | { ok: false; bad: BadLine } {
  const name = path.basename(file);
  if ('tooLong' in entry) {
    return {
      ok: false,
      bad: {
        file: name,
        lineNo: entry.lineNo,
        error: `line of ${entry.bytes} bytes is longer than the reader's limit`,
      },
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(entry.text);
  } catch (err) {
    return {
      ok: false,
      bad: {
        file: name,
        lineNo: entry.lineNo,
        error: `malformed JSON (${(err as Error).message})`,
      },
    };
  }
  if (!shape) return { ok: true, value };
  const checked = shape(value);
  return checked.ok
    ? checked
    : { ok: false, bad: { file: name, lineNo: entry.lineNo, error: checked.error } };
}
