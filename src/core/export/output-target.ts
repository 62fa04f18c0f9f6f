import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { CwbError } from '../errors';

/** Text written piece by piece, waiting whenever the destination is full (memory stays flat). */
export interface TextSink {
  write(text: string): Promise<void>;
}

export function sinkOf(stream: Writable): TextSink {
  return {
    write: async (text) => {
      if (!stream.write(text)) await once(stream, 'drain');
    },
  };
}

/** Where one exported file goes: a file written under a temporary name and renamed when complete, or stdout. */
export interface OutputTarget {
  readonly stream: Writable;
  /** The final path, or null for stdout. */
  readonly path: string | null;
  /** Flushes and puts the file in place; returns its size in bytes (0 for stdout). */
  commit(): Promise<number>;
  /** Removes the partial file; never throws. */
  abort(): Promise<void>;
}

/** `-` is stdout. A file appears only when complete, so an interrupted export leaves nothing half-written behind. */
export async function openOutput(
  target: string,
  stdout: Writable = process.stdout,
): Promise<OutputTarget> {
  if (target === '-') {
    return {
      stream: stdout,
      path: null,
      commit: async () => 0,
      abort: async () => undefined,
    };
  }
  const finalPath = path.resolve(target);
  const temp = path.join(
    path.dirname(finalPath),
    `.${path.basename(finalPath)}.tmp-${process.pid}-${crypto.randomBytes(6).toString('hex')}`,
  );
  const stream = fs.createWriteStream(temp, { flags: 'wx' });
  try {
    await once(stream, 'open');
  } catch (err) {
    throw new CwbError('io', `cannot write ${finalPath}: ${(err as Error).message}`);
  }
  return {
    stream,
    path: finalPath,
    commit: async () => {
      if (!stream.writableEnded) stream.end();
      if (!stream.writableFinished) await once(stream, 'finish');
      await fs.promises.rename(temp, finalPath);
      return (await fs.promises.stat(finalPath)).size;
    },
    abort: async () => {
      stream.destroy();
      await fs.promises.rm(temp, { force: true });
    },
  };
}
