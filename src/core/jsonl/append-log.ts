import fs from 'node:fs';
import { writeAllSync } from './write-all';
import { writeLine } from './write-line';

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
