import fs from 'node:fs';
import { writeAllSync } from './write-all';
import { writeLine } from './write-line';

export interface AppendLogOptions {
  /** fdatasync after every append (every flush when `batched`), so a line survives power loss. */
  fsync?: boolean;
  /**
   * Hold appended lines in memory, up to BATCH_BYTES, and write them together: at `flush()`,
   * `close()`, `reopen()` or when the next line would not fit. For a writer that appends many
   * lines at once and tells others only when it is done (the sources' sync commits after
   * closing its tasks): one write per line was a tenth of a first sync (docs/benchmarks.md
   * §14). Nothing else may read the file between an append and the flush.
   */
  batched?: boolean;
  /** What a batched log holds at most before it writes (BATCH_BYTES by default). */
  batchBytes?: number;
  /**
   * A batched log: runs before any of its lines reach the disk. A log whose lines refer to
   * another's (current.jsonl to messages.jsonl) writes the other's held lines here first.
   */
  beforeWrite?: () => void;
}

/** What a batched log holds at most before it writes, unless told otherwise. */
export const BATCH_BYTES = 128 * 1024;
/** A batch starts this small and doubles as lines come, up to its limit. */
const FIRST_BATCH_BYTES = 64 * 1024;
/**
 * What the batches of all logs of the process may take together: past it, a log writes what
 * it holds instead of growing (a sync with many threads of one file open at once).
 */
export const PROCESS_BATCH_BYTES = 32 * 1024 * 1024;
let batchesAllocated = 0;

/** The memory the batches of all open batched logs take now. */
export function batchBytesAllocated(): number {
  return batchesAllocated;
}

export interface AppendResult {
  /** Byte offset where the line starts. */
  offset: number;
  /** Bytes written, including the trailing '\n'. */
  bytes: number;
}

/**
 * A JSON Lines file opened for appending. Assumes it is the only writer: the size is read
 * once at open and then tracked, so offsets stay exact without a stat per line.
 */
export class AppendLog {
  readonly path: string;
  private fd: number;
  /** The file's size once every held line is written. */
  private bytes: number;
  private readonly fsync: boolean;
  private readonly batched: boolean;
  private readonly batchBytes: number;
  /** Lines held by a batched log (made at its first line, dropped at close). */
  private batch: Buffer | undefined;
  private held = 0;
  private readonly beforeWrite: (() => void) | undefined;

  constructor(path: string, options: AppendLogOptions = {}) {
    this.path = path;
    this.fsync = options.fsync ?? false;
    this.batched = options.batched ?? false;
    this.batchBytes = options.batchBytes ?? BATCH_BYTES;
    this.beforeWrite = options.beforeWrite;
    this.fd = -1;
    this.bytes = 0;
    this.open();
  }

  /** The size with the held lines: the next line's offset. */
  get size(): number {
    return this.bytes;
  }

  /** What is in the file already: the size without the held lines. */
  get onDisk(): number {
    return this.bytes - this.held;
  }

  /** The held lines (a view, valid until the next append or flush). */
  heldBytes(): Buffer {
    return this.batch ? this.batch.subarray(0, this.held) : Buffer.alloc(0);
  }

  /**
   * Replaces the held lines with `lines` (whole lines, each with its '\n'): lines rewritten
   * before they reached the disk. May hold more than the limit until the next write.
   */
  replaceHeld(lines: Buffer): void {
    if (this.fd < 0) throw new Error(`AppendLog ${this.path}: replace after close`);
    if (!this.batched) throw new Error(`AppendLog ${this.path}: only a batched log holds lines`);
    if (lines.length > 0 && lines[lines.length - 1] !== 0x0a) {
      throw new Error(`AppendLog ${this.path}: held lines must end with a newline`);
    }
    const onDisk = this.onDisk;
    if (!this.batch || this.batch.length < lines.length) this.allocate(lines.length, 0);
    this.held = lines.copy(this.batch!);
    this.bytes = onDisk + this.held;
  }

  /** Writes the held lines (a batched log), then fdatasyncs with `fsync`. */
  flush(): void {
    if (this.held === 0) return;
    this.beforeWrite?.();
    const held = this.held;
    this.held = 0;
    const onDisk = this.bytes - held;
    try {
      writeAllSync(this.fd, this.batch!.subarray(0, held));
      if (this.fsync) fs.fdatasyncSync(this.fd);
    } catch (error) {
      // The held lines are lost: the file is cut back to the lines written before them.
      this.bytes = truncateBack(this.fd, onDisk);
      throw error;
    }
  }

  /**
   * Appends one line, given whole or as the parts it is made of (a long line's parts are
   * written one after the other, not joined first: see write-line.ts).
   */
  append(line: string | readonly string[]): AppendResult {
    if (this.fd < 0) throw new Error(`AppendLog ${this.path}: append after close`);
    if (hasNewline(line)) {
      throw new Error(`AppendLog ${this.path}: a line must not contain a raw newline`);
    }
    return this.write(line);
  }

  /**
   * Appends one line already encoded as UTF-8 with its '\n' (encodeLinePair in
   * write-line.ts), with the same guarantees as append().
   */
  appendEncoded(line: Buffer): AppendResult {
    if (this.fd < 0) throw new Error(`AppendLog ${this.path}: append after close`);
    if (line.length === 0 || line.indexOf(0x0a) !== line.length - 1) {
      throw new Error(`AppendLog ${this.path}: an encoded line must end with its only newline`);
    }
    return this.write(line);
  }

  private write(line: string | readonly string[] | Buffer): AppendResult {
    if (this.batched) {
      const bytes = this.hold(line);
      if (bytes > 0) {
        const offset = this.bytes;
        this.bytes += bytes;
        return { offset, bytes };
      }
      // Too long to hold: written now, after the lines held before it (and the other log's).
      this.beforeWrite?.();
      this.flush();
    }
    // The line and its '\n' land together or the tail is torn, which recoverTornTail
    // repairs; never a '\n' without its line.
    const offset = this.bytes;
    let written: number;
    try {
      if (Buffer.isBuffer(line)) {
        writeAllSync(this.fd, line);
        written = line.length;
      } else {
        written = writeLine(this.fd, line);
      }
      if (this.fsync) fs.fdatasyncSync(this.fd);
    } catch (error) {
      // A failed write (disk full) may have landed part of the line. Cut it off, so the next
      // append (once there is room again) starts its own line instead of being glued to it.
      this.bytes = truncateBack(this.fd, offset);
      throw error;
    }
    this.bytes += written;
    return { offset, bytes: written };
  }

  /**
   * Copies a line and its '\n' into the batch; the bytes held, or 0 when it does not fit even
   * an empty batch. Makes room by writing the batch first.
   */
  private hold(line: string | readonly string[] | Buffer): number {
    const parts = Buffer.isBuffer(line) ? undefined : typeof line === 'string' ? [line] : line;
    let most = 0;
    if (parts) {
      // At most 3 UTF-8 bytes per UTF-16 unit, and the '\n'.
      for (const part of parts) most += part.length * 3;
      most += 1;
    } else most = (line as Buffer).length;
    if (most > this.batchBytes) return 0;
    if (most > this.batchBytes - this.held) this.flush();
    const batch = this.makeRoom(most);
    if (!batch) return 0;
    const start = this.held;
    if (!parts) this.held += (line as Buffer).copy(batch, this.held);
    else {
      for (const part of parts) this.held += batch.write(part, this.held, 'utf8');
      batch[this.held++] = 0x0a;
    }
    return this.held - start;
  }

  /**
   * A batch with room for `bytes` more: made, or doubled, up to the limit. Undefined when the
   * process's batches may not grow by that much even once this one's lines are written.
   */
  private makeRoom(bytes: number): Buffer | undefined {
    if (this.batch && this.batch.length - this.held >= bytes) return this.batch;
    let size = Math.min(this.batchBytes, FIRST_BATCH_BYTES);
    while (size < this.held + bytes) size = Math.min(this.batchBytes, size * 2);
    const have = this.batch?.length ?? 0;
    if (batchesAllocated - have + size > PROCESS_BATCH_BYTES) {
      this.flush();
      if (this.batch && this.batch.length >= bytes) return this.batch;
      return undefined;
    }
    this.allocate(size, this.held);
    return this.batch;
  }

  /** Replaces the batch with one of `size` bytes, keeping its first `keep` bytes. */
  private allocate(size: number, keep: number): void {
    const grown = Buffer.allocUnsafe(size);
    this.batch?.copy(grown, 0, 0, keep);
    batchesAllocated += size - (this.batch?.length ?? 0);
    this.batch = grown;
  }

  /**
   * Cuts the file back to `offset` (a line start at or before the end): undoes the last
   * append when what it belongs with could not be written. Held lines past it are dropped.
   */
  truncateTo(offset: number): void {
    if (this.fd < 0) throw new Error(`AppendLog ${this.path}: truncate after close`);
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > this.bytes) {
      throw new RangeError(`AppendLog ${this.path}: cannot truncate to ${offset} of ${this.bytes}`);
    }
    const onDisk = this.bytes - this.held;
    if (offset >= onDisk) {
      this.held = offset - onDisk;
    } else {
      this.held = 0;
      fs.ftruncateSync(this.fd, offset);
    }
    this.bytes = offset;
  }

  /**
   * Opens the path again. Needed after the file was replaced (atomic rewrite, rename): the
   * old descriptor still points at the replaced file, so appends would be lost.
   */
  reopen(): void {
    this.close();
    this.open();
  }

  /** Writes the held lines and closes; the file is closed even when that write fails. */
  close(): void {
    if (this.fd < 0) return;
    const fd = this.fd;
    try {
      this.flush();
    } finally {
      this.fd = -1;
      batchesAllocated -= this.batch?.length ?? 0;
      this.batch = undefined;
      fs.closeSync(fd);
    }
  }

  private open(): void {
    const fd = fs.openSync(this.path, 'a');
    try {
      this.bytes = fs.fstatSync(fd).size;
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
    this.fd = fd;
  }
}

function hasNewline(line: string | readonly string[]): boolean {
  if (typeof line === 'string') return line.includes('\n');
  for (const part of line) if (part.includes('\n')) return true;
  return false;
}

/**
 * Truncates `fd` back to `offset` after a failed write and returns the size the file has
 * now: `offset`, or — when even the truncation fails — whatever size it was left with
 * (torn-tail recovery sets that fragment aside when the file is next opened for writing).
 */
export function truncateBack(fd: number, offset: number): number {
  try {
    fs.ftruncateSync(fd, offset);
    return offset;
  } catch {
    return fs.fstatSync(fd).size;
  }
}

/** Appends one value as a JSON line (JSON.stringify never emits a raw newline). */
export function appendJsonLine(log: AppendLog, value: unknown): AppendResult {
  const json = JSON.stringify(value) as string | undefined;
  if (json === undefined) {
    throw new Error(`AppendLog ${log.path}: value has no JSON form (${typeof value})`);
  }
  return log.append(json);
}
