import { NEWLINE } from './constants';
import type { LineEntry } from './line-entry';

/**
 * Turns chunks of a file into lines. Splitting happens on '\n' bytes and each line is
 * decoded whole, so a multi-byte UTF-8 character is never cut at a chunk edge. Holds at
 * most maxLineBytes of one unfinished line; past that it only counts bytes.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private pendingBytes = 0;
  private skipping = false;
  private lineStart: number;
  private lineNo: number;
  private readonly maxLineBytes: number;

  constructor(start: number, firstLineNo: number, maxLineBytes: number) {
    this.lineStart = start;
    this.lineNo = firstLineNo;
    this.maxLineBytes = maxLineBytes;
  }

  /**
   * Yields the lines that end in `chunk`, read at file position `position`. The caller may
   * reuse the chunk's memory once this generator is done: unfinished bytes are copied.
   */
  *push(chunk: Buffer, position: number): Generator<LineEntry> {
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, from);
      if (newline === -1) {
        this.hold(chunk.subarray(from), true);
        return;
      }
      this.hold(chunk.subarray(from, newline), false);
      yield this.finishLine(false);
      from = newline + 1;
      this.lineStart = position + from;
    }
  }

  /** Yields the unfinished last line, if any, flagged partial. */
  *end(): Generator<LineEntry> {
    if (this.pendingBytes > 0) yield this.finishLine(true);
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
    if (this.parts.length === 1) return this.parts[0].toString('utf8');
    return Buffer.concat(this.parts, this.pendingBytes).toString('utf8');
  }
}
