import fs from 'node:fs';

/**
 * fs.writeSync may write fewer bytes than asked (signals, quotas, pipes), so every caller
 * that must not lose bytes goes through this loop. At the file's own offset, or from
 * `position` when given.
 */
export function writeAllSync(fd: number, data: Buffer, position?: number): void {
  let written = 0;
  while (written < data.length) {
    const at = position === undefined ? null : position + written;
    written += fs.writeSync(fd, data, written, data.length - written, at);
  }
}

/**
 * Same guarantee for a promise-based file handle: at the file's own offset, or from
 * `position` when given (the file's offset is then left alone).
 */
export async function writeAll(
  handle: fs.promises.FileHandle,
  data: Buffer,
  position?: number,
): Promise<void> {
  let written = 0;
  while (written < data.length) {
    const at = position === undefined ? null : position + written;
    const { bytesWritten } = await handle.write(data, written, data.length - written, at);
    written += bytesWritten;
  }
}
