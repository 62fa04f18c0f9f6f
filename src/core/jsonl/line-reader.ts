import fs from 'node:fs';
import { CHUNK_BYTES, DEFAULT_MAX_LINE_BYTES } from './constants';
import type { LineEntry, ReadLinesOptions } from './line-entry';
import { LineSplitter } from './line-splitter';

interface Window {
  start: number;
  end: number;
  splitter: LineSplitter;
}

/**
 * Streams the lines of `path` between byte `start` and `end`. Reads one 64 KiB chunk at a
 * time and only when the consumer asks for more, so stopping early (break, return) reads
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
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let position = window.start;
    while (position < window.end) {
      const length = Math.min(CHUNK_BYTES, window.end - position);
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
  const fd = fs.openSync(path, 'r');
  try {
    const window = windowFor(path, fs.fstatSync(fd).size, options);
    // A short window (one line of a large file, as a search hit reads) needs no whole chunk.
    const buffer = Buffer.allocUnsafe(
      Math.max(1, Math.min(CHUNK_BYTES, window.end - window.start)),
    );
    let position = window.start;
    while (position < window.end) {
      const length = Math.min(CHUNK_BYTES, window.end - position);
      const bytesRead = fs.readSync(fd, buffer, 0, length, position);
      if (bytesRead === 0) break;
      yield* window.splitter.push(buffer.subarray(0, bytesRead), position);
      position += bytesRead;
    }
    yield* window.splitter.end();
  } finally {
    fs.closeSync(fd);
  }
}

function windowFor(path: string, size: number, options: ReadLinesOptions): Window {
  const start = options.start ?? 0;
  // The size is taken once at open: lines appended while reading are left for the next read.
  const end = Math.min(options.end ?? size, size);
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const firstLineNo = options.firstLineNo ?? 1;
  requireNonNegativeInteger(path, 'start', start);
  requireNonNegativeInteger(path, 'end', end);
  requireNonNegativeInteger(path, 'maxLineBytes', maxLineBytes);
  if (!Number.isInteger(firstLineNo)) {
    throw new RangeError(`readLines ${path}: firstLineNo must be an integer, got ${firstLineNo}`);
  }
  return { start, end, splitter: new LineSplitter(start, firstLineNo, maxLineBytes) };
}

function requireNonNegativeInteger(path: string, name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`readLines ${path}: ${name} must be a non-negative integer, got ${value}`);
  }
}
