import fs from 'node:fs';
import path from 'node:path';
import { findLastNewline, readByteAt } from './backward-scan';
import { CHUNK_BYTES, NEWLINE } from './constants';
import { fsyncDirectory } from './fsync-dir';
import { readFullySync } from './read-fully';
import { writeAllSync } from './write-all';

export type TornTailResult =
  | { recovered: false }
  | {
      recovered: true;
      /** Size of the fragment moved out. */
      bytes: number;
      /** Where the fragment now lives (appended as its own line). */
      corruptPath: string;
      /** Where the fragment started, which is also the file's new size. */
      offset: number;
    };

/**
 * A writer killed mid-append can leave a last line without its '\n'. Moves such a fragment
 * to `<path>.corrupt` and cuts the file back to its last complete line. The fragment is
 * durable in .corrupt before the cut, so a crash during recovery never loses a byte: at
 * worst the fragment is saved twice.
 */
export function recoverTornTail(filePath: string): TornTailResult {
  let fd: number;
  try {
    fd = fs.openSync(filePath, 'r+');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { recovered: false };
    throw error;
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0 || readByteAt(fd, size - 1) === NEWLINE) return { recovered: false };
    const offset = findLastNewline(fd, size) + 1;
    const corruptPath = `${filePath}.corrupt`;
    saveFragment(fd, offset, size, corruptPath);
    fs.ftruncateSync(fd, offset);
    fs.fsyncSync(fd);
    return { recovered: true, bytes: size - offset, corruptPath, offset };
  } finally {
    fs.closeSync(fd);
  }
}

/** Appends bytes [start, end) of `fd` plus '\n' to `corruptPath`, chunk by chunk, durably. */
function saveFragment(fd: number, start: number, end: number, corruptPath: string): void {
  const out = fs.openSync(corruptPath, 'a');
  try {
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, end - start));
    for (let position = start; position < end;) {
      const chunk = buffer.subarray(0, Math.min(buffer.length, end - position));
      readFullySync(fd, chunk, position);
      writeAllSync(out, chunk);
      position += chunk.length;
    }
    writeAllSync(out, Buffer.from('\n'));
    fs.fsyncSync(out);
  } finally {
    fs.closeSync(out);
  }
  // The .corrupt file may be new: persist its directory entry too.
  fsyncDirectory(path.dirname(corruptPath));
}
