import fs from 'node:fs';
import { CHUNK_BYTES, DEFAULT_MAX_LINE_BYTES } from './constants';
import type { LineEntry, ReadLinesOptions } from './line-entry';
import { LineSplitter } from './line-splitter';

interface Window {
  start: number;
  end: number;
  chunkBytes: number;
  splitter: LineSplitter;
}

/**
 * Streams the lines of `path` between byte `start` and `end`. Reads one chunk (64 KiB
 * unless `chunkBytes` says otherwise) at a time and only when the consumer asks for more, so stopping early (break, return) reads
 * little and closes the file.
 */
export async function* readLines(
  path: string,
  options: ReadLinesOptions = {},
): AsyncGenerator<LineEntry> {
  const handle = await fs.promises.open(path, 'r');
  try {
    const { size } = await handle.stat();
    const window = windowFor(path, size, options);
    const buffer = Buffer.allocUnsafe(
      Math.max(1, Math.min(window.chunkBytes, window.end - window.start)),
    );
    let position = window.start;
    while (position < window.end) {
      const length = Math.min(window.chunkBytes, window.end - position);
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      if (bytesRead === 0) break; // the file shrank under us
      yield* window.splitter.push(buffer.subarray(0, bytesRead), position);
      position += bytesRead;
    }
    yield* window.splitter.end();
  } finally {
    await handle.close();
  }
}

/** Synchronous twin of readLines, for code paths that cannot await. */
export function* readLinesSync(path: string, options: ReadLinesOptions = {}): Generator<LineEntry> {
  const reader = new SyncLineReader(path, options);
  try {
    for (let line = reader.next(); line !== undefined; line = reader.next()) yield line;
  } finally {
    reader.close();
  }
}

/**
 * The lines of `path` between byte `start` and `end`, pulled one by one (`next`), read one
 * chunk at a time when the lines of the last are used up. No generator in between: the
 * readers of every line of many files (a sync) loop on it directly. `close` when done.
 */
export class SyncLineReader {
  private readonly fd: number;
  private readonly window: Window;
  private readonly buffer: Buffer;
  private position: number;
  private ended = false;

  constructor(path: string, options: ReadLinesOptions = {}) {
    this.fd = fs.openSync(path, 'r');
    try {
      this.window = windowFor(path, fs.fstatSync(this.fd).size, options);
    } catch (err) {
      fs.closeSync(this.fd);
      throw err;
    }
    // A short window (one line of a large file, as a search hit reads) needs no whole chunk.
    this.buffer = Buffer.allocUnsafe(
      Math.max(1, Math.min(this.window.chunkBytes, this.window.end - this.window.start)),
    );
    this.position = this.window.start;
  }

  next(): LineEntry | undefined {
    const splitter = this.window.splitter;
    for (;;) {
      const line = splitter.next();
      if (line !== undefined) return line;
      if (this.ended) return undefined;
      if (this.position >= this.window.end) return this.finish();
      const length = Math.min(this.buffer.length, this.window.end - this.position);
      const bytesRead = fs.readSync(this.fd, this.buffer, 0, length, this.position);
      if (bytesRead === 0) return this.finish(); // the file shrank under us
      splitter.feed(this.buffer.subarray(0, bytesRead), this.position);
      this.position += bytesRead;
    }
  }

  close(): void {
    fs.closeSync(this.fd);
  }

  private finish(): LineEntry | undefined {
    this.ended = true;
    return this.window.splitter.last();
  }
}

function windowFor(path: string, size: number, options: ReadLinesOptions): Window {
  const start = options.start ?? 0;
  // The size is taken once at open: lines appended while reading are left for the next read.
  const end = Math.min(options.end ?? size, size);
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const firstLineNo = options.firstLineNo ?? 1;
  const chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
  requireNonNegativeInteger(path, 'start', start);
  requireNonNegativeInteger(path, 'end', end);
  requireNonNegativeInteger(path, 'maxLineBytes', maxLineBytes);
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1)
    throw new RangeError(
      `readLines ${path}: chunkBytes must be a positive integer, got ${chunkBytes}`,
    );
  if (!Number.isInteger(firstLineNo)) {
    throw new RangeError(`readLines ${path}: firstLineNo must be an integer, got ${firstLineNo}`);
  }
  return {
    start,
    end,
    chunkBytes,
    splitter: new LineSplitter(start, firstLineNo, maxLineBytes, options.decode),
  };
}

function requireNonNegativeInteger(path: string, name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`readLines ${path}: ${name} must be a non-negative integer, got ${value}`);
  }
}
