import fs from 'node:fs';
import { CHUNK_BYTES, NEWLINE } from './constants';
import { readFullySync } from './read-fully';

/**
 * Position of the last '\n' before `end` in an open file, or -1 when there is none. Reads
 * backwards one 64 KiB chunk at a time, so a long last line costs time, never memory.
 */
export function findLastNewline(fd: number, end: number): number {
  const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(end, 1)));
  let position = end;
  while (position > 0) {
    const length = Math.min(buffer.length, position);
    position -= length;
    const chunk = buffer.subarray(0, length);
    readFullySync(fd, chunk, position);
    const found = chunk.lastIndexOf(NEWLINE);
    if (found !== -1) return position + found;
  }
  return -1;
}

/** The byte at `position`, or undefined past the end of the file. */
export function readByteAt(fd: number, position: number): number | undefined {
  const buffer = Buffer.alloc(1);
  return fs.readSync(fd, buffer, 0, 1, position) === 1 ? buffer[0] : undefined;
}
