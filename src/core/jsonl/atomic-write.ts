import fs from 'node:fs';
import path from 'node:path';
import { fsyncDirectory } from './fsync-dir';
import { writeAll, writeAllSync } from './write-all';
import { randomHex } from '../random-hex';

/**
 * Replaces `target` so that readers, and the disk after a power cut, see either the old
 * content or the new one, never a mix: write a temp file beside it, fsync, rename over.
 */
export function writeFileAtomic(
  target: string,
  data: string | Buffer,
  options: { mode?: number } = {},
): void {
  writeFileAtomicChunks(target, [data], options);
}

/**
 * writeFileAtomic for content produced piece by piece, synchronously: the pieces are never
 * joined, so a file larger than a string can hold (V8 stops at 512 MiB) can be written.
 * `fsync: false` keeps the rename's all-or-nothing for readers and killed processes but
 * leaves the flush to the OS, for content that can be made again (durability default).
 */
export function writeFileAtomicChunks(
  target: string,
  chunks: Iterable<string | Buffer>,
  options: { mode?: number; fsync?: boolean } = {},
): void {
  const durable = options.fsync ?? true;
  const temp = tempPathFor(target);
  try {
    // The mode is set when the temp file is created, so the file is never readable more widely.
    const fd = fs.openSync(temp, 'wx', options.mode ?? 0o666);
    try {
      for (const chunk of chunks) writeAllSync(fd, toBuffer(chunk));
      if (durable) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  if (durable) fsyncDirectory(path.dirname(target));
}

/** writeFileAtomic for content produced piece by piece, so it never sits whole in memory. */
export async function writeFileAtomicFrom(
  target: string,
  chunks: AsyncIterable<string | Buffer> | Iterable<string | Buffer>,
): Promise<void> {
  const temp = tempPathFor(target);
  try {
    const handle = await fs.promises.open(temp, 'wx');
    try {
      for await (const chunk of chunks) await writeAll(handle, toBuffer(chunk));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.promises.rename(temp, target);
  } catch (error) {
    await fs.promises.rm(temp, { force: true });
    throw error;
  }
  fsyncDirectory(path.dirname(target));
}

/** Same directory as the target, so the rename never crosses file systems. */
function tempPathFor(target: string): string {
  const suffix = `${process.pid}-${randomHex(6)}`;
  return path.join(path.dirname(target), `.${path.basename(target)}.tmp-${suffix}`);
}

function toBuffer(data: string | Buffer): Buffer {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}
