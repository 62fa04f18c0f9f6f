import fs from 'node:fs';
import { DEFAULT_MAX_LINE_BYTES, NEWLINE } from '../jsonl/constants';
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
 * is written on as the same bytes. Memory stays at one chunk plus one unfinished line.
 */
export async function* readLineBatches(
  path: string,
  options: { chunkBytes?: number; maxLineBytes?: number; start?: LinePosition } = {},
): AsyncGenerator<(RawLine | TooLongLine)[]> {
  // Two of these are alive during every model call: 256 KiB keeps them off the task
  // process's peak (issue #17) and still reads a 100 MiB context in 400 calls.
  const chunkBytes = options.chunkBytes ?? POOLED_BUFFER_BYTES;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const handle = await fs.promises.open(path, 'r');
  let pending: Promise<{ bytesRead: number }> | undefined;
  // Two buffers: the next chunk is read while the consumer works on the current one.
  const buffers =
    chunkBytes === POOLED_BUFFER_BYTES
      ? borrowBuffers(2)
      : [Buffer.allocUnsafe(chunkBytes), Buffer.allocUnsafe(chunkBytes)];
  try {
    // The size is taken once: lines appended while reading are left for the next request.
    const { size } = await handle.stat();
    let carry: Buffer[] = [];
    let carryBytes = 0;
    let skipping = false;
    let lineNo = options.start?.lineNo ?? 1;
    let position = options.start?.offset ?? 0;
    let turn = 0;
    const readInto = (buffer: Buffer, at: number): Promise<{ bytesRead: number }> =>
      at < size
        ? handle.read(buffer, 0, Math.min(chunkBytes, size - at), at)
        : Promise.resolve({ bytesRead: 0 });
    pending = readInto(buffers[0], position);
    for (;;) {
      const buffer = buffers[turn];
      const { bytesRead } = await pending;
      if (bytesRead === 0) break; // the end, or the file shrank under us
      position += bytesRead;
      turn = 1 - turn;
      pending = readInto(buffers[turn], position);
      const chunkStart = position - bytesRead;
      const chunk = buffer.subarray(0, bytesRead);
      const batch: (RawLine | TooLongLine)[] = [];
      let from = 0;
      for (
        let newline = chunk.indexOf(NEWLINE);
        newline !== -1;
        newline = chunk.indexOf(NEWLINE, from)
      ) {
        const piece = chunk.subarray(from, newline);
        const end = chunkStart + newline + 1;
        if (skipping || carryBytes + piece.length > maxLineBytes) {
          batch.push({ tooLong: true, lineNo: lineNo++, partial: false, end });
        } else if (carryBytes === 0) {
          batch.push({ bytes: piece, lineNo: lineNo++, partial: false, end });
        } else {
          carry.push(piece);
          batch.push({
            bytes: Buffer.concat(carry, carryBytes + piece.length),
            lineNo: lineNo++,
            partial: false,
            end,
          });
        }
        carry = [];
        carryBytes = 0;
        skipping = false;
        from = newline + 1;
      }
      // The unfinished rest is copied: the buffer is reused by the next read.
      const rest = chunk.subarray(from);
      if (rest.length > 0) {
        carryBytes += rest.length;
        if (carryBytes > maxLineBytes) {
          skipping = true;
          carry = [];
        } else if (!skipping) {
          carry.push(Buffer.from(rest));
        }
      }
      if (batch.length > 0) yield batch;
    }
    if (skipping) yield [{ tooLong: true, lineNo, partial: true, end: position }];
    else if (carryBytes > 0)
      yield [{ bytes: Buffer.concat(carry, carryBytes), lineNo, partial: true, end: position }];
  } finally {
    // A consumer that stops early (a malformed line) leaves a read in flight.
    await pending?.catch(() => undefined);
    await handle.close();
    // Lines handed out are slices of these: the consumer is done with them by now.
    giveBack(buffers);
  }
}
