import fs from 'node:fs';

/** How much of a file is looked at to decide whether it is binary (as git does). */
export const BINARY_PROBE_BYTES = 8 * 1024;

/** True when the first 8 KiB of the file hold a NUL byte: text files practically never do. */
export function looksBinary(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(BINARY_PROBE_BYTES);
    const bytesRead = fs.readSync(fd, buffer, 0, BINARY_PROBE_BYTES, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    fs.closeSync(fd);
  }
}
