import fs from 'node:fs';
import { DEFAULT_MAX_LINE_BYTES, NEWLINE } from '../jsonl/constants';
import { readFullySync } from '../jsonl/read-fully';
import { borrowBuffers, giveBack, POOLED_BUFFER_BYTES } from './buffer-pool';

/** One line as bytes (without its '\n'); `bytes` is valid only until the next batch is read. */
export interface RawLine {
  bytes: Buffer;
  lineNo: number;
  /** The file ended without a '\n' after this line. */
  partial: boolean;
  /** Where the next line starts: the file offset just past this line's '\n'. */
  end: number;
}

/** A line longer than the limit: reported, never held. */
export interface TooLongLine {
  tooLong: true;
  lineNo: number;
  partial: boolean;
  end: number;
}

/** Where to begin reading: the start of a line, and that line's number. */
export interface LinePosition {
  offset: number;
  lineNo: number;
}

/**
 * The lines of a file as byte slices, one batch per chunk read. Building request.json must
 * run near the speed of a file copy (DESIGN §7), so this reads 256 KiB at a time and hands
 * out slices of the read buffer instead of a string per line: a line that needs no change
 * is written on as the same bytes.
 *
 * Memory is one buffer (issue #17: it is alive during every model call). The unfinished
 * line at a chunk's end moves to the buffer's front and the next read fills in after it, so
 * a line split by a read is still a slice. A line longer than the buffer is scanned on to
 * its end and then read once into a buffer of its own size (a 460 KB answer of 4,000 tool
 * calls used to be held twice: its pieces, then their concatenation).
 */
export async function* readLineBatches(
  path: string,
  options: { chunkBytes?: number; maxLineBytes?: number; start?: LinePosition } = {},
): AsyncGenerator<(RawLine | TooLongLine)[]> {
  const chunkBytes = options.chunkBytes ?? POOLED_BUFFER_BYTES;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const fd = fs.openSync(path, 'r');
  const buffers =
    chunkBytes === POOLED_BUFFER_BYTES ? borrowBuffers(1) : [Buffer.allocUnsafe(chunkBytes)];
  const buffer = buffers[0];
  try {
    // The size is taken once: lines appended while reading are left for the next request.
    const { size } = fs.fstatSync(fd);
    const file: Source = { fd, size, reads: 0 };
    let lineNo = options.start?.lineNo ?? 1;
    /** The file offset of buffer[0]; buffer[0, filled) holds the file's bytes from there. */
    let at = options.start?.offset ?? 0;
    let filled = 0;
    for (;;) {
      if (filled === buffer.length) {
        // One line fills the buffer: it is read whole once its end is known.
        const long = await scanToLineEnd(file, buffer, at);
        const end = at + long.length + (long.terminated ? 1 : 0);
        const partial = !long.terminated;
        yield [
          long.length > maxLineBytes
            ? { tooLong: true, lineNo: lineNo++, partial, end }
            : { bytes: readRange(file, at, long.length), lineNo: lineNo++, partial, end },
        ];
        if (partial) return;
        at = end;
        filled = long.rest;
      } else {
        const bytesRead = await readInto(file, buffer, filled, at + filled);
        if (bytesRead === 0) break; // the end, or the file shrank under us
        filled += bytesRead;
      }
      const chunk = buffer.subarray(0, filled);
      const batch: (RawLine | TooLongLine)[] = [];
      let from = 0;
      for (
        let newline = chunk.indexOf(NEWLINE);
        newline !== -1;
        newline = chunk.indexOf(NEWLINE, from)
      ) {
        const end = at + newline + 1;
        batch.push(
          newline - from > maxLineBytes
            ? { tooLong: true, lineNo: lineNo++, partial: false, end }
            : { bytes: chunk.subarray(from, newline), lineNo: lineNo++, partial: false, end },
        );
        from = newline + 1;
      }
      if (batch.length > 0) yield batch;
      // The consumer is done with the slices: the unfinished rest moves to the front.
      if (from > 0) {
        buffer.copyWithin(0, from, filled);
        at += from;
        filled -= from;
      }
    }
    if (filled > 0) {
      const end = at + filled;
      yield [
        filled > maxLineBytes
          ? { tooLong: true, lineNo, partial: true, end }
          : { bytes: buffer.subarray(0, filled), lineNo, partial: true, end },
      ];
    }
  } finally {
    fs.closeSync(fd);
    // Lines handed out are slices of it: the consumer is done with them by now.
    giveBack(buffers);
  }
}

interface Source {
  fd: number;
  /** Bytes past this are not read: see readLineBatches. */
  size: number;
  /** Reads since the event loop last had a turn. */
  reads: number;
}

/**
 * Reads between two turns of the event loop (2 MiB). The reads are synchronous: the lines
 * were just appended and sit in the page cache, where a read takes tens of microseconds,
 * and a round trip through libuv's thread pool per read cost more than the read (building
 * request.json ran ~30 % slower with one buffer and no read ahead, `npm run bench`, group 2).
 * A host building a body (a summary in the app) still gets its event loop back regularly.
 */
const READS_PER_TURN = 8;

/** Reads file bytes from `position` into buffer[offset...], as many as fit; 0 at the end. */
async function readInto(
  file: Source,
  buffer: Buffer,
  offset: number,
  position: number,
): Promise<number> {
  const length = Math.min(buffer.length - offset, file.size - position);
  if (length <= 0) return 0;
  if (++file.reads >= READS_PER_TURN) {
    file.reads = 0;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return fs.readSync(file.fd, buffer, offset, length, position);
}

/**
 * The line starting at `start`, whose first buffer-full holds no '\n': reads on through
 * `buffer` until one. Returns the line's length, whether a '\n' ended it (not the end of
 * the file), and how many bytes after that '\n' are left at the buffer's front.
 */
async function scanToLineEnd(
  file: Source,
  buffer: Buffer,
  start: number,
): Promise<{ length: number; terminated: boolean; rest: number }> {
  let length = buffer.length;
  for (;;) {
    const bytesRead = await readInto(file, buffer, 0, start + length);
    if (bytesRead === 0) return { length, terminated: false, rest: 0 };
    const newline = buffer.subarray(0, bytesRead).indexOf(NEWLINE);
    if (newline === -1) {
      length += bytesRead;
      continue;
    }
    buffer.copyWithin(0, newline + 1, bytesRead);
    return { length: length + newline, terminated: true, rest: bytesRead - newline - 1 };
  }
}

/**
 * `length` bytes from `position`, in a buffer of their own. The scan has just read them, so
 * a file that no longer holds them was rewritten underneath: readFullySync says so.
 */
function readRange(file: Source, position: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  readFullySync(file.fd, bytes, position);
  return bytes;
}
