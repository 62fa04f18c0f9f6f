import { AppendLog } from '../jsonl/append-log';
import { readLastLine } from '../jsonl/tail';
import { countLines } from './count-lines';
import { RecordLogReader } from './record-log-reader';
import type { BadLine } from './message-window';

/**
 * A JSONL file of numbered records (summaries, tools, planning). The next number comes from
 * the last line, read from the end of the file, so opening never scans the whole file.
 */
export class RecordLog<T extends object> {
  private readonly log: AppendLog;
  private next: number;

  constructor(
    readonly file: string,
    idField: keyof T & string,
    fsync: boolean,
  ) {
    this.log = new AppendLog(file, { fsync });
    this.next = lastId(file, idField) + 1;
  }

  /** Appends a record, numbering it; returns the record as written. */
  append(build: (id: number) => T): T {
    const record = build(this.next);
    this.log.append(JSON.stringify(record));
    this.next++;
    return record;
  }

  /** The number the next appended record will get. */
  get nextId(): number {
    return this.next;
  }

  count(): number {
    return countLines(this.file);
  }

  /** The newest record, or undefined (seed 000 get_latest_summary reads the last line). */
  latest(): T | undefined {
    const line = readLastLine(this.file);
    if (line === undefined) return undefined;
    try {
      return JSON.parse(line) as T;
    } catch {
      return undefined;
    }
  }

  list(offset = 0, limit = 1000): { records: T[]; bad: BadLine[] } {
    return new RecordLogReader<T>(this.file).list(offset, limit);
  }

  close(): void {
    this.log.close();
  }
}

function lastId(file: string, idField: string): number {
  const line = readLastLine(file);
  if (line === undefined) return 0;
  try {
    const value = (JSON.parse(line) as Record<string, unknown>)[idField];
    if (typeof value === 'number' && Number.isFinite(value)) return value;
  } catch {
    // A malformed last line: fall back to counting lines so ids stay unique.
  }
  return countLines(file);
}
