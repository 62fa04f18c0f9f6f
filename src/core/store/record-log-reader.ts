import fs from 'node:fs';
import { readLinesSync } from '../jsonl/line-reader';
import { isPartial, parseEntry, type BadLine } from './message-window';

/** Reads a JSONL record file in order, `limit` records at most; malformed lines are reported, never thrown. */
export class RecordLogReader<T> {
  constructor(readonly file: string) {}

  list(offset = 0, limit = 1000): { records: T[]; bad: BadLine[] } {
    const records: T[] = [];
    const bad: BadLine[] = [];
    let seen = 0;
    if (!fs.existsSync(this.file)) return { records, bad };
    for (const entry of readLinesSync(this.file)) {
      if (records.length >= limit || isPartial(entry)) break;
      if ('text' in entry && entry.text.trim() === '') continue;
      const parsed = parseEntry(entry, this.file);
      if (!parsed.ok) bad.push(parsed.bad);
      else if (seen++ >= offset) records.push(parsed.value as T);
    }
    return { records, bad };
  }
}
