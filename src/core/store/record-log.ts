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
  private log: AppendLog | undefined;
  private next: number | undefined;

  /**
   * `lazy`: the file is opened (and made) at the first append, not now. A task most of whose
   * logs stay empty (another agent's session read by the sync) then makes only the files
   * it writes: each file made was ~0.3 ms of a first sync's task (docs/benchmarks.md §14).
   * Readers take a missing log for an empty one.
   */
  /**
   * `batched`: records are held in memory and written together (AppendLog), at the latest
   * when the log is closed; this log's own reads write them first.
   */
  constructor(
    readonly file: string,
    private readonly idField: keyof T & string,
    private readonly fsync: boolean,
    lazy = false,
    private readonly batched = false,
  ) {
    if (!lazy) this.opened();
  }

  /**
   * Appends a record, numbering it; returns the record as written. `encode` gives its line
   * (or the parts it is made of) when the log knows a cheaper way to the same text as
   * JSON.stringify.
   */
  append(build: (id: number) => T, encode: (record: T) => string | string[] = JSON.stringify): T {
    const log = this.opened();
    const record = build(this.nextId);
    log.append(encode(record));
    this.next = this.nextId + 1;
    return record;
  }

  /** The number the next appended record will get. */
  get nextId(): number {
    this.next ??= lastId(this.file, this.idField) + 1;
    return this.next;
  }

  private opened(): AppendLog {
    if (!this.log) {
      this.log = new AppendLog(this.file, { fsync: this.fsync, batched: this.batched });
      // A log just made (empty) has no last line to read back.
      this.next ??= this.log.size === 0 ? 1 : lastId(this.file, this.idField) + 1;
    }
    return this.log;
  }

  count(): number {
    this.log?.flush();
    return countLines(this.file);
  }

  /** The newest record, or undefined (seed 000 get_latest_summary reads the last line). */
  latest(): T | undefined {
    this.log?.flush();
    const line = lastLineOf(this.file);
    if (line === undefined) return undefined;
    try {
      return JSON.parse(line) as T;
    } catch {
      return undefined;
    }
  }

  list(offset = 0, limit = 1000): { records: T[]; bad: BadLine[] } {
    this.log?.flush();
    return new RecordLogReader<T>(this.file).list(offset, limit);
  }

  close(): void {
    this.log?.close();
  }
}

/** The last complete line of a log, or undefined when it has none or is not there (yet). */
function lastLineOf(file: string): string | undefined {
  try {
    return readLastLine(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function lastId(file: string, idField: string): number {
  const line = lastLineOf(file);
  if (line === undefined) return 0;
  try {
    const value = (JSON.parse(line) as Record<string, unknown>)[idField];
    if (typeof value === 'number' && Number.isFinite(value)) return value;
  } catch {
    // A malformed last line: fall back to counting lines so ids stay unique.
  }
  return countLines(file);
}
