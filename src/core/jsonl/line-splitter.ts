import { NEWLINE } from './constants';
import type { LineEntry } from './line-entry';

const EMPTY = Buffer.alloc(0);

/** The text of a line: bytes [start, end) of `bytes`. */
export type LineDecoder = (bytes: Buffer, start: number, end: number) => string;

const utf8: LineDecoder = (bytes, start, end) => bytes.toString('utf8', start, end);

/**
 * Turns chunks of a file into lines. Splitting happens on '\n' bytes and each line is
 * decoded whole, so a multi-byte UTF-8 character is never cut at a chunk edge. Holds at
 * most maxLineBytes of one unfinished line; past that it only counts bytes.
 *
 * Pulled line by line (`feed` a chunk, then `next` until it gives undefined): no generator
 * and no copy for a line that lies whole in its chunk, the common case on the hot paths (a
 * sync reads every line of every session).
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private pendingBytes = 0;
  private skipping = false;
  private lineStart: number;
  private lineNo: number;
  private readonly maxLineBytes: number;
  private chunk: Buffer = EMPTY;
  private from = 0;
  private position = 0;

  constructor(
    start: number,
    firstLineNo: number,
    maxLineBytes: number,
    private readonly decode: LineDecoder = utf8,
  ) {
    this.lineStart = start;
    this.lineNo = firstLineNo;
    this.maxLineBytes = maxLineBytes;
  }

  /** The next chunk, read at file position `position`; its lines come from `next`. */
  feed(chunk: Buffer, position: number): void {
    this.chunk = chunk;
    this.from = 0;
    this.position = position;
  }

  /**
   * The next line that ends in the chunk fed, or undefined when it holds no more: its
   * unfinished bytes are then copied, so the caller may reuse the chunk's memory.
   */
  next(): LineEntry | undefined {
    const chunk = this.chunk;
    const from = this.from;
    const newline = chunk.indexOf(NEWLINE, from);
    if (newline === -1) {
      this.hold(chunk.subarray(from), true);
      this.chunk = EMPTY;
      this.from = 0;
      return undefined;
    }
    this.from = newline + 1;
    let entry: LineEntry;
    if (this.pendingBytes === 0 && newline - from <= this.maxLineBytes) {
      // The whole line is in this chunk: decoded from it, nothing held.
      entry = {
        text: this.decode(chunk, from, newline),
        offset: this.lineStart,
        bytes: newline - from,
        lineNo: this.lineNo,
      };
      this.lineNo += 1;
    } else {
      this.hold(chunk.subarray(from, newline), false);
      entry = this.finishLine(false);
    }
    this.lineStart = this.position + this.from;
    return entry;
  }

  /**
   * Yields the lines that end in `chunk`, read at file position `position`. The caller may
   * reuse the chunk's memory once this generator is done: unfinished bytes are copied.
   */
  *push(chunk: Buffer, position: number): Generator<LineEntry> {
    this.feed(chunk, position);
    for (let line = this.next(); line !== undefined; line = this.next()) yield line;
  }

  /** The unfinished last line, if any, flagged partial. */
  last(): LineEntry | undefined {
    return this.pendingBytes > 0 ? this.finishLine(true) : undefined;
  }

  /** Yields the unfinished last line, if any, flagged partial. */
  *end(): Generator<LineEntry> {
    const line = this.last();
    if (line) yield line;
  }

  private hold(bytes: Buffer, mustCopy: boolean): void {
    if (bytes.length === 0) return;
    this.pendingBytes += bytes.length;
    if (this.skipping) return;
    if (this.pendingBytes > this.maxLineBytes) {
      this.skipping = true;
      this.parts = [];
      return;
    }
    this.parts.push(mustCopy ? Buffer.from(bytes) : bytes);
  }

  private finishLine(partial: boolean): LineEntry {
    const position = { offset: this.lineStart, bytes: this.pendingBytes, lineNo: this.lineNo };
    const entry: LineEntry = this.skipping
      ? { tooLong: true, ...position }
      : { text: this.decodeParts(), ...position };
    if (partial) entry.partial = true;
    this.parts = [];
    this.pendingBytes = 0;
    this.skipping = false;
    this.lineNo += 1;
    return entry;
  }

  private decodeParts(): string {
    if (this.parts.length === 0) return '';
    const whole =
      this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.pendingBytes);
    return this.decode(whole, 0, whole.length);
  }
}
