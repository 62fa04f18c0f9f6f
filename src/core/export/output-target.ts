import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import { CwbError } from '../errors';
import { randomHex } from '../random-hex';

/** Text written piece by piece, waiting whenever the destination is full (memory stays flat). */
export interface TextSink {
  write(text: string): Promise<void>;
}

export function sinkOf(stream: Writable): TextSink {
  return {
    write: async (text) => {
      if (stream.errored) throw stream.errored;
      if (!stream.write(text)) await drained(stream);
    },
  };
}

/**
 * Waits for 'drain', or fails with the stream's error. A stream that failed already (a full
 * disk) never drains and may have emitted its 'error' before anyone waited: checked first.
 */
function drained(stream: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (err?: Error | null): void => {
      stream.off('drain', onDrain);
      stream.off('error', onError);
      stream.off('close', onClose);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = (): void => settle();
    const onError = (err: Error): void => settle(err);
    const onClose = (): void =>
      settle(stream.errored ?? new Error('the output was closed before the export was written'));
    if (stream.errored || stream.destroyed) {
      onClose();
      return;
    }
    stream.on('drain', onDrain);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
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
  /** The error the file failed with (a full disk), if it did: writing it is what failed. */
  readonly error: Error | undefined;
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
      error: undefined,
    };
  }
  const finalPath = path.resolve(target);
  const temp = path.join(
    path.dirname(finalPath),
    `.${path.basename(finalPath)}.tmp-${process.pid}-${randomHex(6)}`,
  );
  const stream = fs.createWriteStream(temp, { flags: 'wx' });
  // Always listened to: a write error with nobody listening would end the process (and a
  // host serving other users with it). Whoever writes finds it in `error` / `stream.errored`.
  let error: Error | undefined;
  stream.on('error', (err) => {
    error ??= err;
  });
  try {
    await once(stream, 'open');
  } catch (err) {
    throw cannotWrite(finalPath, err);
  }
  return {
    stream,
    path: finalPath,
    get error() {
      return error;
    },
    commit: async () => {
      try {
        if (error) throw error;
        if (!stream.writableEnded) stream.end();
        await finished(stream);
        await fs.promises.rename(temp, finalPath);
        return (await fs.promises.stat(finalPath)).size;
      } catch (err) {
        throw cannotWrite(finalPath, error ?? err);
      }
    },
    abort: async () => {
      stream.destroy();
      await fs.promises.rm(temp, { force: true });
    },
  };
}

/** "cannot write <path>: <why>", an io error (exit code 2), not an internal one. */
export function cannotWrite(file: string, err: unknown): CwbError {
  if (err instanceof CwbError) return err;
  return new CwbError('io', `cannot write ${file}: ${(err as Error).message}`);
}
