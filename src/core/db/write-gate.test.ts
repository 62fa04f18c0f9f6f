import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../../test/support/temp-dir';
import { openDatabase, writeTx } from './open-database';
import { joinWriteGate, shareWriteGate } from './write-gate';

const tempDir = useTempDir();

/** test-support/gate-holder.ts in a thread of its own, through tsx's loader. */
function holder(workerData: Record<string, unknown>): Worker {
  const file = pathToFileURL(path.join(import.meta.dirname, 'test-support', 'gate-holder.ts'));
  return new Worker(
    `import('tsx/esm/api').then((t) => { t.register(); return import(${JSON.stringify(file.href)}); });`,
    { eval: true, workerData },
  );
}

const next = (worker: Worker): Promise<unknown> =>
  new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });

describe("the write gate of a process's threads", () => {
  it("holds a write transaction until another thread's turn is over", async () => {
    const db = openDatabase(path.join(tempDir(), 'tasks.db'));
    const gate = shareWriteGate();
    const flags = new SharedArrayBuffer(8);
    const worker = holder({ gate, flags, marks: 40 });
    try {
      expect(await next(worker)).toBe('holding');
      // The other thread holds the gate but no SQLite lock: only the gate makes this wait.
      const seen = writeTx(db, () => Atomics.load(new Int32Array(flags), 1));
      expect(seen).toBe(40);
      expect(await next(worker)).toBe('released');
    } finally {
      db.close();
      await worker.terminate();
    }
  });

  it('passes over a holder that never lets go (a thread that died holding it)', () => {
    const gate = shareWriteGate();
    joinWriteGate(gate, { waitMs: 50 });
    const slot = new Int32Array(gate);
    Atomics.store(slot, 0, 999);
    const db = openDatabase(path.join(tempDir(), 'tasks.db'));
    try {
      expect(writeTx(db, () => db.pragma('user_version', { simple: true }))).toBeGreaterThan(0);
      expect(Atomics.load(slot, 0)).toBe(0);
    } finally {
      db.close();
    }
  });
});
