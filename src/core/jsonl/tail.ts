import fs from 'node:fs';
import { CHUNK_BYTES, NEWLINE } from './constants';
import { readFullySync } from './read-fully';

export interface ReadLastLinesOptions {
  /** Count a last line that has no trailing '\n' (default false: it may be half-written). */
  includePartial?: boolean;
}

/**
 * The last `n` lines of `path`, oldest first, read backwards in 64 KiB chunks: memory is
 * proportional to those lines, not to the file.
 */
export function readLastLines(
  path: string,
  n: number,
  options: ReadLastLinesOptions = {},
): string[] {
  if (!Number.isInteger(n) || n < 0) {
    throw new RangeError(`readLastLines ${path}: n must be a non-negative integer, got ${n}`);
  }
  if (n === 0) return [];
  const fd = fs.openSync(path, 'r');
  try {
    return collectBackwards(fd, n, options.includePartial ?? false);
  } finally {
    fs.closeSync(fd);
  }
}

/** The last complete line of `path`, or undefined when it has none. */
export function readLastLine(path: string, options: ReadLastLinesOptions = {}): string | undefined {
  return readLastLines(path, 1, options)[0];
}

function collectBackwards(fd: number, n: number, includePartial: boolean): string[] {
  const lines: string[] = []; // newest first
  // Pieces of the line being assembled; found right to left, so in reverse file order.
  let pieces: Buffer[] = [];
  // Until the first '\n' is met (from the end) we are in the bytes after the last '\n':
  // an unterminated tail, or nothing at all when the file ends with '\n'.
  let inTail = true;
  const keepTail = includePartial;

  const finishLine = (): void => {
    const bytes = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces.reverse());
    const isLine = !inTail || (keepTail && bytes.length > 0);
    if (isLine) lines.push(bytes.toString('utf8'));
    pieces = [];
    inTail = false;
  };

  let position = fs.fstatSync(fd).size;
  while (position > 0 && lines.length < n) {
    const length = Math.min(CHUNK_BYTES, position);
    position -= length;
    const chunk = Buffer.allocUnsafe(length);
    readFullySync(fd, chunk, position);
    let cut = length;
    while (lines.length < n) {
      const newline = cut === 0 ? -1 : chunk.lastIndexOf(NEWLINE, cut - 1);
      if (newline === -1) break;
      if (!inTail || keepTail) pieces.push(chunk.subarray(newline + 1, cut));
      finishLine();
      cut = newline;
    }
    if (lines.length < n && (!inTail || keepTail)) pieces.push(chunk.subarray(0, cut));
  }
  // Reaching the file start ends the first line of the file.
  if (position === 0 && lines.length < n && (pieces.length > 0 || !inTail)) finishLine();
  return lines.slice(0, n).reverse();
}
