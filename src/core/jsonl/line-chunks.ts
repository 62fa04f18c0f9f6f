/** Lines are written in pieces of about this size: one write per line costs more than its bytes. */
export const WRITE_CHUNK_CHARS = 1 << 20;

/**
 * `lines` joined into pieces of about `chunkChars` characters (a longer line is a piece of
 * its own), so a file of many short lines is written in few calls without ever being one
 * string: a long task's context can be larger than a string may be.
 */
export function* lineChunks(
  lines: Iterable<string>,
  chunkChars: number = WRITE_CHUNK_CHARS,
): Generator<string> {
  let pending: string[] = [];
  let size = 0;
  for (const line of lines) {
    pending.push(line);
    size += line.length;
    if (size >= chunkChars) {
      yield pending.join('');
      pending = [];
      size = 0;
    }
  }
  if (pending.length > 0) yield pending.join('');
}
