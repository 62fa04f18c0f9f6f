/**
 * One writer at a time among this process's threads (a first sync of many files runs on more
 * than one: src/core/sources/sync-threads.ts), handed over the moment it is free.
 *
 * SQLite's own lock is what keeps writers apart, and still does; but a connection that finds
 * it taken sleeps in SQLite's busy handler for 1, 2, 5, 10… ms before it looks again, while
 * the sync's transactions last well under a millisecond. Two threads writing to tasks.db
 * took turns through those sleeps, and the parallel sync was slower than one thread. Threads
 * that share this gate wait on it instead (Atomics.wait, woken by the release), so SQLite's
 * lock is free whenever one of them asks for it. Other processes still meet SQLite's lock.
 *
 * The gate is only a shortcut past the busy handler: a thread that has waited WAIT_MS (a
 * holder stuck or gone: a thread that died in a transaction) takes it, and SQLite's lock
 * decides as it always did.
 */

/** 0: free; otherwise the holder's threadId + 1. */
let gate: Int32Array | undefined;
/** Nesting in this thread (a transaction inside a transaction is a savepoint of it). */
let depth = 0;

export const WAIT_MS = 5_000;
let waitMs = WAIT_MS;

/** The gate of this process's threads, made on first use; passed to each thread that writes. */
export function shareWriteGate(): SharedArrayBuffer {
  gate ??= new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  return gate.buffer as SharedArrayBuffer;
}

/**
 * A thread started by another: its writes take turns with the other threads'. `waitMs`:
 * how long before a holder that does not let go is passed over (tests).
 */
export function joinWriteGate(buffer: SharedArrayBuffer, options: { waitMs?: number } = {}): void {
  gate = new Int32Array(buffer);
  waitMs = options.waitMs ?? WAIT_MS;
}

/** Runs `fn` (a write transaction) holding the gate, when this thread shares one. */
export function gated<T>(fn: () => T): T {
  if (gate === undefined || depth > 0) return nested(fn);
  const held = gate;
  // Looked up only here: a task process (one thread) never loads node:worker_threads.
  const me = process.getBuiltinModule('node:worker_threads').threadId + 1;
  acquire(held, me);
  try {
    return nested(fn);
  } finally {
    // Only if still ours: a thread that waited past WAIT_MS may have taken it.
    if (Atomics.compareExchange(held, 0, me, 0) === me) Atomics.notify(held, 0, 1);
  }
}

function nested<T>(fn: () => T): T {
  depth++;
  try {
    return fn();
  } finally {
    depth--;
  }
}

function acquire(held: Int32Array, me: number): void {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const holder = Atomics.compareExchange(held, 0, 0, me);
    if (holder === 0) return;
    const left = deadline - Date.now();
    if (left <= 0) {
      // Taken over from a holder that has not let go in WAIT_MS.
      if (Atomics.compareExchange(held, 0, holder, me) === holder) return;
      continue;
    }
    Atomics.wait(held, 0, holder, left);
  }
}
