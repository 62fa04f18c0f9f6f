import fs from 'node:fs';

/**
 * Fills `buffer` from `position`. readSync may return fewer bytes than asked; a read that
 * returns nothing means the file shrank, which callers reading a known range cannot handle.
 */
export function readFullySync(fd: number, buffer: Buffer, position: number): void {
  let filled = 0;
  while (filled < buffer.length) {
    const bytesRead = fs.readSync(fd, buffer, filled, buffer.length - filled, position + filled);
    if (bytesRead === 0) {
      throw new Error(
        `file ended at byte ${position + filled} while ${buffer.length} bytes were expected from ${position}`,
      );
    }
    filled += bytesRead;
  }
}
