/**
 * Random hex digits for names that must not collide but guard nothing: temporary files
 * (whose names carry the pid too), tool-output refs, call ids, a stand-in digest in an
 * export's size estimate. From Math.random, which V8 seeds per process from the system's
 * entropy, rather than node:crypto: a task process never needs node:crypto otherwise, and
 * loading it costs ~1.5 MiB of RSS (issue #17, docs/benchmarks.md group 1). Anything
 * secret (tokens, keys) uses node:crypto.
 */
export function randomHex(bytes: number): string {
  let hex = '';
  while (hex.length < bytes * 2) {
    // 32 bits at a time: Math.random has 52, and a 32-bit integer prints exactly.
    hex += Math.floor(Math.random() * 0x1_0000_0000)
      .toString(16)
      .padStart(8, '0');
  }
  return hex.slice(0, bytes * 2);
}
