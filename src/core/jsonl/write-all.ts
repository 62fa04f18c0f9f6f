import fs from 'node:fs';

/**
 * fs.writeSync may write fewer bytes than asked (signals, quotas, pipes), so every caller
 * that must not lose bytes goes through this loop.
 */
export function writeAllSync(fd: number, data: Buffer): void {
  let written = 0;
  while (written < data.length) {
    written += fs.writeSync(fd, data, written, data.length - written);
  }
}

/** Same guarantee for a promise-based file handle. */
export async function writeAll(handle: fs.promises.FileHandle, data: Buffer): Promise<void> {
  let written = 0;
  while (written < data.length) {
    const { bytesWritten } = await handle.write(data, written, data.length - written);
    written += bytesWritten;
  }
}

/** Same guarantee, writing at `position` (the file's own offset is left alone). */
export async function writeAllAt(
  handle: fs.promises.FileHandle,
  data: Buffer,
  position: number,
): Promise<void> {
  let written = 0;
  while (written < data.length) {
    const { bytesWritten } = await handle.write(
      data,
      written,
      data.length - written,
      position + written,
    );
    written += bytesWritten;
  }
}
