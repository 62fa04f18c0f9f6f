/**
 * The 256 KiB buffers a model call reads and writes through (request.json's lines and
 * batches, the HTTP body), lent out and given back instead of allocated per call.
 *
 * Why: such a buffer lives as long as its call's I/O, long enough for V8 to move it to
 * the old generation, where it stays until a full collection. Those are rare in a task
 * process (its heap hardly grows), so every call left ~1.5 MiB of dead buffers behind and
 * a task's peak grew step by step with its length (issue #17, docs/benchmarks.md group 1).
 */
export const POOLED_BUFFER_BYTES = 256 * 1024;

/** Enough for one call's buffers (two per reader, writer and sender) with one to spare. */
const MAX_IDLE = 8;

const idle: Buffer[] = [];

/** `count` buffers of POOLED_BUFFER_BYTES; give them back with `giveBack` when done. */
export function borrowBuffers(count: number): Buffer[] {
  const buffers: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    buffers.push(idle.pop() ?? Buffer.allocUnsafe(POOLED_BUFFER_BYTES));
  }
  return buffers;
}

/**
 * Returns buffers to the pool. Only once nothing reads or writes them any more: a pending
 * read into one, or a write from one, would land in the next borrower's data.
 */
export function giveBack(buffers: readonly Buffer[]): void {
  for (const buffer of buffers) {
    if (buffer.length === POOLED_BUFFER_BYTES && idle.length < MAX_IDLE) idle.push(buffer);
  }
}

/**
 * Drops the idle buffers, for a process that collects right after (the task process, once a
 * request is sent: its buffers are not needed again until the next call, and kept they were
 * ~1.5 MiB of a task process's memory through every step; issue #17).
 */
export function releaseIdleBuffers(): void {
  idle.length = 0;
}
