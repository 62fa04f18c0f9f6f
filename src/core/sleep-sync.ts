/**
 * Blocks this thread for `ms` milliseconds. Only for code that is synchronous by design
 * (SQLite, the host's pipe, the fleet index), where the caller waits anyway.
 */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
