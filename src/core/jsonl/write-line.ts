import { cutIndex } from '../utf16-cut';
import { writeAllSync } from './write-all';

/**
 * Lines are encoded into one buffer kept for the process instead of a new one per line. A
 * new Buffer per line is memory outside V8's heap that is only freed when a collection
 * runs, and V8 lets up to 64 MiB of it pile up before it runs one: a task appending 50 KiB
 * tool outputs would carry that much dead memory for nothing. The buffer grows with the
 * lines up to this size; a longer line goes through it in pieces. (It used to grow to
 * 1 MiB and stay there: one answer asking for 4,000 tool calls, a 460 KB line, left a task
 * process ~0.5 MiB larger for the rest of its run, issue #17.)
 */
const SCRATCH_MAX_BYTES = 256 * 1024;
/**
 * A line of fewer characters is joined and encoded in one call: for short lines the calls
 * cost more than the copy (the append bench, group 3 of docs/benchmarks.md).
 */
const JOIN_BELOW_CHARS = 16 * 1024;
/** Characters per piece of a longer line: at most 3 UTF-8 bytes each, so a piece and a '\n' fit. */
export const LINE_PIECE_CHARS = Math.floor((SCRATCH_MAX_BYTES - 1) / 3);
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * Writes one line, given whole or as the parts it is made of, and its '\n' as UTF-8 at
 * `fd`'s position; returns the bytes written. A line that fits the buffer is one write. A
 * long line's parts are not joined: a message's lines share their big parts (a tool output,
 * an answer's tool calls), and joining them would copy each one per line.
 * The '\n' goes out last: a failure part way leaves a line without its '\n' (the caller
 * cuts it off), never a '\n' without its line.
 */
export function writeLine(fd: number, line: string | readonly string[]): number {
  if (typeof line !== 'string') {
    let chars = 0;
    for (const part of line) chars += part.length;
    if (chars >= JOIN_BELOW_CHARS) return writeParts(fd, line, chars);
    line = line.join('');
  }
  return writeParts(fd, [line], line.length);
}

function writeParts(fd: number, parts: readonly string[], chars: number): number {
  // At most 3 bytes per UTF-16 unit: when that fits, no need to measure the line first.
  const most = chars * 3 + 1;
  if (most > scratch.length && !growScratch(most, 1 + utf8Bytes(parts))) {
    return writeLongLine(fd, parts);
  }
  let length = 0;
  for (const part of parts) length += scratch.write(part, length, 'utf8');
  scratch[length++] = 0x0a;
  writeAllSync(fd, scratch.subarray(0, length));
  return length;
}

/**
 * Grows the line buffer, too small for `most` bytes (3 per UTF-16 unit), for the `bytes`
 * the text really takes; false when they are past what the buffer may grow to.
 */
function growScratch(most: number, bytes: number): boolean {
  if (bytes > SCRATCH_MAX_BYTES) return false;
  if (bytes > scratch.length) {
    scratch = Buffer.allocUnsafe(Math.min(SCRATCH_MAX_BYTES, Math.max(bytes, most)));
  }
  return true;
}

function utf8Bytes(parts: readonly string[]): number {
  let bytes = 0;
  for (const part of parts) bytes += Buffer.byteLength(part, 'utf8');
  return bytes;
}

/** A line longer than the buffer: through it in pieces, written each time it fills. */
function writeLongLine(fd: number, parts: readonly string[]): number {
  if (scratch.length < SCRATCH_MAX_BYTES) scratch = Buffer.allocUnsafe(SCRATCH_MAX_BYTES);
  let length = 0;
  let written = 0;
  const flush = (): void => {
    writeAllSync(fd, scratch.subarray(0, length));
    written += length;
    length = 0;
  };
  for (const part of parts) {
    for (let at = 0; at < part.length;) {
      const end = cutIndex(part, Math.min(part.length, at + LINE_PIECE_CHARS));
      // Room for the piece at 3 bytes per unit, and for the '\n'.
      if (length + (end - at) * 3 >= scratch.length) flush();
      const piece = at === 0 && end === part.length ? part : part.slice(at, end);
      length += scratch.write(piece, length, 'utf8');
      at = end;
    }
  }
  scratch[length++] = 0x0a;
  flush();
  return written;
}

/** Where each part of the first line of a pair starts in the buffer (its end is the next start). */
const partStarts: number[] = [];

/**
 * Encodes two lines into the line buffer, the second reusing bytes of the first: a part of
 * the second given as a number is the bytes that part (its index) of the first was encoded
 * to, copied instead of encoded again. A message's content and tool calls are in both its
 * messages.jsonl and its current.jsonl line; encoding them once was ~5 % of an append
 * (issue #17). Returns both lines with their '\n', as views of the buffer that stay valid
 * until the next line is encoded or written, or undefined when they do not fit the buffer
 * (write each with writeLine then).
 */
export function encodeLinePair(
  first: readonly string[],
  second: readonly (string | number)[],
): [Buffer, Buffer] | undefined {
  let chars = 0;
  for (const part of first) chars += part.length;
  for (const part of second) chars += partText(first, part).length;
  // Both lines and their two '\n', at most 3 bytes per UTF-16 unit.
  const most = chars * 3 + 2;
  if (most > scratch.length) {
    let bytes = 2 + utf8Bytes(first);
    for (const part of second) bytes += Buffer.byteLength(partText(first, part), 'utf8');
    if (!growScratch(most, bytes)) return undefined;
  }
  partStarts.length = 0;
  let length = 0;
  for (const part of first) {
    partStarts.push(length);
    length += scratch.write(part, length, 'utf8');
  }
  partStarts.push(length);
  scratch[length++] = 0x0a;
  const secondStart = length;
  for (const part of second) {
    if (typeof part === 'string') {
      length += scratch.write(part, length, 'utf8');
    } else {
      length += scratch.copy(scratch, length, partStarts[part]!, partStarts[part + 1]!);
    }
  }
  scratch[length++] = 0x0a;
  return [scratch.subarray(0, secondStart), scratch.subarray(secondStart, length)];
}

/** A part of a pair's second line: its text, or the text of the first line's part it names. */
export function partText(first: readonly string[], part: string | number): string {
  return typeof part === 'string' ? part : first[part]!;
}
