import path from 'node:path';
import type { SearchHit, SearchResult } from '../../shared/api/messages-api';
import type { MessageRecord } from '../../shared/task-types';
import { OffsetIndex } from '../jsonl/offset-index';
import { readLinesSync } from '../jsonl/line-reader';
import { TASK_FILES } from '../store/contexts-layout';
import { asMessageRecord } from '../store/message-shape';

/** Bytes of messages.jsonl one call reads at most: a 1 GB task is searched in steps, never in one blocking pass. */
export const SEARCH_BYTES_PER_CALL = 16 * 1024 * 1024;
const SNIPPET_BEFORE = 60;
const SNIPPET_AFTER = 100;

export interface SearchOptions {
  query: string;
  caseSensitive: boolean;
  fromSeq: number;
  limit: number;
  maxBytes?: number;
}

/**
 * Searches a task's history from `fromSeq`, streaming messages.jsonl from that seq's offset
 * (found through the index). A line is parsed only when its raw text contains the query as
 * JSON would encode it, so most lines cost a substring test. Stops after `limit` hits or
 * `maxBytes`, and says where to continue.
 */
export function searchHistory(taskDir: string, options: SearchOptions): SearchResult {
  const file = path.join(taskDir, TASK_FILES.messages);
  const index = OffsetIndex.open(file, path.join(taskDir, TASK_FILES.messagesIndex), {
    readonly: true,
  });
  try {
    const total = index.count;
    const maxBytes = options.maxBytes ?? SEARCH_BYTES_PER_CALL;
    const fold = (s: string): string => (options.caseSensitive ? s : s.toLowerCase());
    const needle = fold(options.query);
    const encoded = fold(JSON.stringify(options.query).slice(1, -1));
    const hits: SearchHit[] = [];
    let scannedBytes = 0;
    let nextSeq: number | null = null;
    if (options.fromSeq <= total) {
      for (const entry of readLinesSync(file, {
        start: index.offsetOf(options.fromSeq),
        firstLineNo: options.fromSeq,
      })) {
        if (entry.partial) break;
        if (hits.length >= options.limit || scannedBytes >= maxBytes) {
          nextSeq = entry.lineNo;
          break;
        }
        scannedBytes += entry.bytes + 1;
        if ('tooLong' in entry || !fold(entry.text).includes(encoded)) continue;
        const hit = findInMessage(entry.text, needle, fold);
        if (hit) hits.push(hit);
      }
    }
    return { hits, nextSeq, total, scannedBytes };
  } finally {
    index.close();
  }
}

function findInMessage(
  text: string,
  needle: string,
  fold: (s: string) => string,
): SearchHit | undefined {
  let record: MessageRecord;
  try {
    const checked = asMessageRecord(JSON.parse(text));
    if (!checked.ok) return undefined;
    record = checked.value;
  } catch {
    return undefined;
  }
  const fields: [SearchHit['field'], string | null | undefined][] = [
    ['content', record.content],
    [
      'tool_calls',
      record.tool_calls?.map((c) => `${c.function.name}(${c.function.arguments})`).join('\n'),
    ],
    ['name', record.tool_name ?? record.name],
  ];
  for (const [field, value] of fields) {
    if (typeof value !== 'string') continue;
    const at = fold(value).indexOf(needle);
    if (at < 0) continue;
    const start = Math.max(0, at - SNIPPET_BEFORE);
    const end = Math.min(value.length, at + needle.length + SNIPPET_AFTER);
    const prefix = start > 0 ? '…' : '';
    const snippet = `${prefix}${value.slice(start, end)}${end < value.length ? '…' : ''}`;
    const matchStart = prefix.length + (at - start);
    return {
      seq: record.seq,
      role: record.role,
      ...(record.kind && { kind: record.kind }),
      field,
      snippet,
      match: [matchStart, Math.min(snippet.length, matchStart + needle.length)],
    };
  }
  return undefined;
}
