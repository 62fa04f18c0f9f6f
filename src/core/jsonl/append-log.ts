import fs from 'node:fs';
import { writeAllSync } from './write-all';

export interface AppendLogOptions {
  /** fdatasync after every append, so an acknowledged line survives power loss. */
  fsync?: boolean;
}

export interface AppendResult {
  /** Byte offset where the line starts. */
  offset: number;
  /** Bytes written, including the trailing '\n'. */
  bytes: number;
}

/**
 * Lines up to this size are encoded into one buffer kept for the process instead of a new
 * one per line. A new Buffer per line is memory outside V8's heap that is only freed when a
 * collection runs, and V8 lets up to 64 MiB of it pile up before it runs one: a task
 * appending 50 KiB tool outputs would carry that much dead memory for nothing.
 */
const SCRATCH_MAX_BYTES = 1024 * 1024;
let scratch = Buffer.allocUnsafe(64 * 1024);

/** `line` and its '\n' as UTF-8; valid until the next call (appends are synchronous). */
function encodeLine(line: string): Buffer {
  // At most 3 bytes per UTF-16 unit: when that fits, no need to measure the line first.
  const most = line.length * 3 + 1;
  if (most > scratch.length) {
    const bytes = Buffer.byteLength(line, 'utf8') + 1;
    if (bytes > SCRATCH_MAX_BYTES) return Buffer.from(line + '\n', 'utf8');
    if (bytes > scratch.length) {
      scratch = Buffer.allocUnsafe(Math.min(SCRATCH_MAX_BYTES, Math.max(bytes, most)));
    }
  }
  const length = scratch.write(line, 0, 'utf8');
  scratch[length] = 0x0a;
  return scratch.subarray(0, length + 1);
}

/**
 * A JSON Lines file opened for appending. Assumes it is the only writer: the size is read
 * once at open and then tracked, so offsets stay exact without a stat per line.
 */
export class AppendLog {
  readonly path: string;
  private fd: number;
  private bytes: number;
  private readonly fsync: boolean;

  constructor(path: string, options: AppendLogOptions = {}) {
    this.path = path;
    this.fsync = options.fsync ?? false;
    this.fd = -1;
    this.bytes = 0;
    this.open();
  }

  get size(): number {
    return this.bytes;
  }

  append(line: string): AppendResult {
    if (this.fd < 0) throw new Error(`AppendLog ${this.path}: append after close`);
    if (line.includes('\n')) {
      throw new Error(`AppendLog ${this.path}: a line must not contain a raw newline`);
    }
    // One buffer, one write loop: the line and its '\n' land together or the tail is torn,
    // which recoverTornTail repairs; never a '\n' without its line.
    const data = encodeLine(line);
    const offset = this.bytes;
    try {
      writeAllSync(this.fd, data);
      if (this.fsync) fs.fdatasyncSync(this.fd);
    } catch (error) {
      // A failed write (disk full) may have landed part of the line. Cut it off, so the next
      // append (once there is room again) starts its own line instead of being glued to it.
      this.bytes = truncateBack(this.fd, offset);
      throw error;
    }
    this.bytes += data.length;
    return { offset, bytes: data.length };
  }

  /**
   * Cuts the file back to `offset` (a line start at or before the end): undoes the last
   * append when what it belongs with could not be written.
   */
  truncateTo(offset: number): void {
    if (this.fd < 0) throw new Error(`AppendLog ${this.path}: truncate after close`);
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > this.bytes) {
      throw new RangeError(`AppendLog ${this.path}: cannot truncate to ${offset} of ${this.bytes}`);
    }
    fs.ftruncateSync(this.fd, offset);
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

  close(): void {
    if (this.fd < 0) return;
    const fd = this.fd;
    this.fd = -1;
    fs.closeSync(fd);
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
