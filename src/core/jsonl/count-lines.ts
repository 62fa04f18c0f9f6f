import fs from 'node:fs';
import { CHUNK_BYTES, NEWLINE } from './constants';

/**
 * The number of complete lines (ended by '\n') in a file, counted on the bytes without
 * decoding any of them: what a caller that needs only the count of a large context
 * should pay, one chunk of memory whatever the size. A last line without its '\n' (still
 * being written) is not counted.
 */
export function countCompleteLines(path: string): number {
  const fd = fs.openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let count = 0;
    let position = 0;
    for (;;) {
      const bytesRead = fs.readSync(fd, buffer, 0, buffer.length, position);
      if (bytesRead === 0) return count;
      position += bytesRead;
      const chunk = bytesRead < buffer.length ? buffer.subarray(0, bytesRead) : buffer;
      for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) count++;
    }
  } finally {
    fs.closeSync(fd);
  }
}
