import fs from 'node:fs';
import { z } from 'zod';
import { readLinesSync } from '../jsonl/line-reader';
import type { LineEntry, TooLongLineEntry } from '../jsonl/line-entry';
import { isUtf8 } from 'node:buffer';
import { BINARY_PROBE_BYTES, looksBinary } from './binary-file';
import { confinePath, show } from './confine-path';
import { defineTool, functionTool } from './define-tool';
import { MAX_INLINE_BYTES, MAX_LINE_CHARS, cutToChars, shortenLine } from './output-limits';
import { optional } from './tool-args';
import type { ToolResult } from './tool-types';
import { failure, success } from './tool-types';

export const MAX_READ_LINES = 2000;

/** Lines up to this size are decoded whole; longer ones only have their start read. */
const BUFFERED_LINE_BYTES = 64 * 1024;

/** Enough bytes for MAX_LINE_CHARS characters even if every one takes 4 bytes. */
const LINE_START_BYTES = MAX_LINE_CHARS * 4;

/**
 * When reading stops early and at most this much of the file is left, the remaining lines
 * are counted exactly; beyond it they are estimated, so a read never costs the whole file.
 */
const EXACT_COUNT_BYTES = 1024 * 1024;

/**
 * Files up to this size are read with one read and split in memory: the chunked line reader
 * costs a handful of syscalls, copies and generator steps per line, which for the typical
 * small source file was most of the tool's time (issue #17).
 */
const ONE_READ_BYTES = 1024 * 1024;

/** What a read puts into the context, leaving room for the closing note. */
const OUTPUT_BUDGET_BYTES = MAX_INLINE_BYTES - 1024;

const args = z.object({
  path: z.string(),
  offset: optional(z.number().int().min(1)),
  limit: optional(z.number().int().min(1).max(MAX_READ_LINES)),
});

export const readFileTool = defineTool({
  definition: functionTool(
    'read_file',
    [
      'Read a text file in the working directory.',
      `Returns lines [offset, offset + limit) numbered from 1, each as "<line number><TAB><text>"; by default the first ${MAX_READ_LINES} lines.`,
      `Reading also stops at about ${MAX_INLINE_BYTES / 1024} KiB of output; the last line of the result then says how many lines are left and which offset continues.`,
      `Lines longer than ${MAX_LINE_CHARS} characters are cut, with a note. Binary files are refused.`,
    ].join(' '),
    {
      path: {
        type: 'string',
        description:
          'File path, relative to the working directory (absolute paths inside it work too).',
      },
      offset: {
        type: 'integer',
        minimum: 1,
        description: 'First line to return, counting from 1. Default 1.',
      },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_READ_LINES,
        description: `How many lines to return at most. Default ${MAX_READ_LINES}.`,
      },
    },
    ['path'],
  ),
  args,
  execute({ path, offset = 1, limit = MAX_READ_LINES }, ctx) {
    const target = confinePath(ctx.workdir, path);
    const name = show(target.display);
    if (!fs.existsSync(target.real)) return failure(`file ${name} does not exist`);
    const stat = fs.statSync(target.real);
    if (stat.isDirectory()) {
      return failure(`${name} is a directory; use list_dir to see what it holds`);
    }
    if (!stat.isFile()) return failure(`${name} is not a regular file`);
    if (stat.size === 0) return success(`(file ${name} is empty)`);
    const binary = (): ToolResult =>
      failure(`${name} is a binary file (${stat.size} bytes); read_file shows text files only`);
    if (stat.size <= ONE_READ_BYTES) {
      // One read for the probe and the lines.
      const data = readSmallFile(target.real, stat.size);
      if (data.subarray(0, BINARY_PROBE_BYTES).includes(0)) return binary();
      return (
        readSmallWindow(data, name, offset, limit) ??
        readWindow(target.real, linesOfBuffer(data), name, data.length, offset, limit)
      );
    }
    if (looksBinary(target.real)) return binary();
    const lines = readLinesSync(target.real, { maxLineBytes: BUFFERED_LINE_BYTES });
    return readWindow(target.real, lines, name, stat.size, offset, limit);
  },
});

/**
 * The window of a file held in memory whose lines are all short, built as bytes in one
 * buffer and decoded once: no string per line (those were most of a task's garbage, issue
 * #17). Gives the same text as readWindow; undefined when a line needs readWindow's care
 * (too long, so cut) or the file is not valid UTF-8 (decoded with replacements per line).
 */
function readSmallWindow(
  data: Buffer,
  name: string,
  offset: number,
  limit: number,
): ToolResult | undefined {
  if (!isUtf8(data)) return undefined;
  const out = outputScratch();
  let length = 0;
  let shown = 0;
  let lineNo = 1;
  let start = 0;
  while (start < data.length) {
    if (lineNo < offset) {
      const newline = data.indexOf(0x0a, start);
      start = newline === -1 ? data.length : newline + 1;
      lineNo++;
      continue;
    }
    if (shown >= limit) break;
    // Past six digits the number no longer fits its column: readWindow pads it as text.
    if (lineNo >= 1_000_000) return undefined;
    // The line is copied while it is scanned for its end, byte by byte: one pass and no
    // call into C++ per line (indexOf, write and copy per line were most of the tool's time,
    // issue #17). A line that does not fit is taken back.
    const before = length;
    if (shown > 0) out[length++] = 0x0a;
    writeLineNumber(out, length, lineNo);
    length += LINE_NUMBER_BYTES;
    // Bytes bound characters from above: a line this short is never cut, a longer one may
    // be, and is left to readWindow.
    const stop = Math.min(data.length, start + MAX_LINE_CHARS + 1);
    let at = start;
    for (; at < stop; at++) {
      const byte = data[at]!;
      if (byte === 0x0a) break;
      out[length++] = byte;
    }
    if (at - start > MAX_LINE_CHARS) return undefined;
    // readWindow counts a newline after every line shown.
    if (shown > 0 && length + 1 > OUTPUT_BUDGET_BYTES) {
      length = before;
      break;
    }
    shown++;
    lineNo++;
    start = at + 1;
  }
  if (shown === 0) {
    const total = lineNo - 1;
    return failure(
      `offset ${offset} is past the end of ${name}, which has ${total} line${total === 1 ? '' : 's'}`,
    );
  }
  const text = out.toString('utf8', 0, length);
  if (start >= data.length) return success(text);
  // The rest of a small file is counted exactly, like readWindow does below EXACT_COUNT_BYTES.
  let count = 0;
  for (let at = start; at < data.length; count++) {
    const newline = data.indexOf(0x0a, at);
    at = newline === -1 ? data.length : newline + 1;
  }
  const last = lineNo - 1;
  const rest = `lines ${offset}-${last} of ${last + count} shown; ${count} more line${count === 1 ? '' : 's'}`;
  return success(`${text}\n[${rest}; continue with offset=${last + 1}]`);
}

/** `String(lineNo).padStart(6)` and a tab, as readWindow writes them. */
const LINE_NUMBER_BYTES = 7;

/** Writes `lineNo` (below 1,000,000) right-aligned in six columns and a tab at `at`. */
function writeLineNumber(out: Buffer, at: number, lineNo: number): void {
  let n = lineNo;
  for (let i = at + 5; i >= at; i--) {
    out[i] = n > 0 ? 0x30 + (n % 10) : 0x20;
    n = Math.floor(n / 10);
  }
  out[at + 6] = 0x09;
}

let fileScratch: Buffer | undefined;

/**
 * A file of at most ONE_READ_BYTES, read into a buffer reused by every call (valid until
 * the next one): a fresh buffer per read was most of a task process's garbage outside V8's
 * heap, each one alive until a collection got to it (issue #17).
 */
function readSmallFile(file: string, size: number): Buffer {
  // One byte more than the stat said: a file that grew since fills the buffer.
  const room = size + 1;
  if (!fileScratch || fileScratch.length < room) {
    fileScratch = Buffer.allocUnsafe(Math.max(room, 64 * 1024));
  }
  const buffer = fileScratch;
  const fd = fs.openSync(file, 'r');
  let length = 0;
  try {
    while (length < room) {
      const bytesRead = fs.readSync(fd, buffer, length, room - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
  } finally {
    fs.closeSync(fd);
  }
  // Grown since its stat: read as it is now (rare enough for a buffer of its own).
  return length < room ? buffer.subarray(0, length) : fs.readFileSync(file);
}

let scratch: Buffer | undefined;

/** Room for a full window: the budget plus the first line, which always goes in. */
function outputScratch(): Buffer {
  scratch ??= Buffer.allocUnsafe(OUTPUT_BUDGET_BYTES + MAX_LINE_CHARS + 64);
  return scratch;
}

function readWindow(
  file: string,
  lines: Generator<LineEntry>,
  name: string,
  size: number,
  offset: number,
  limit: number,
): ToolResult {
  const shown: string[] = [];
  let shownBytes = 0;
  let linesSeen = 0;
  let next: LineEntry | undefined;
  try {
    for (let step = lines.next(); !step.done; step = lines.next()) {
      const entry = step.value;
      linesSeen = entry.lineNo;
      if (entry.lineNo < offset) continue;
      if (shown.length >= limit) {
        next = entry;
        break;
      }
      const text = 'tooLong' in entry ? longLineStart(file, entry) : shortenLine(entry.text);
      const line = `${String(entry.lineNo).padStart(6)}\t${text}`;
      const bytes = Buffer.byteLength(line) + 1;
      // The first line always goes in, so every call makes progress.
      if (shown.length > 0 && shownBytes + bytes > OUTPUT_BUDGET_BYTES) {
        next = entry;
        break;
      }
      shown.push(line);
      shownBytes += bytes;
    }
    if (shown.length === 0) {
      return failure(
        `offset ${offset} is past the end of ${name}, which has ${linesSeen} line${linesSeen === 1 ? '' : 's'}`,
      );
    }
    if (next === undefined) return success(shown.join('\n'));
    const last = next.lineNo - 1;
    const left = size - next.offset;
    let rest: string;
    if (left <= EXACT_COUNT_BYTES) {
      let count = 1;
      for (let step = lines.next(); !step.done; step = lines.next()) count += 1;
      rest = `lines ${offset}-${last} of ${last + count} shown; ${count} more line${count === 1 ? '' : 's'}`;
    } else {
      // Counting would mean reading the rest of a large file: estimate from the lines seen.
      const estimate = Math.max(1, Math.round(left / (next.offset / (next.lineNo - 1))));
      rest = `lines ${offset}-${last} shown; about ${estimate} more lines (${left} more bytes of ${size})`;
    }
    shown.push(`[${rest}; continue with offset=${last + 1}]`);
    return success(shown.join('\n'));
  } finally {
    lines.return(undefined);
  }
}

/** The entries readLinesSync would give for `data` (the whole file), from memory. */
function* linesOfBuffer(data: Buffer): Generator<LineEntry> {
  let start = 0;
  let lineNo = 1;
  while (start < data.length) {
    const newline = data.indexOf(0x0a, start);
    const end = newline === -1 ? data.length : newline;
    const bytes = end - start;
    const position = { offset: start, bytes, lineNo };
    const entry: LineEntry =
      bytes > BUFFERED_LINE_BYTES
        ? { tooLong: true, ...position }
        : { text: data.toString('utf8', start, end), ...position };
    if (newline === -1) entry.partial = true;
    yield entry;
    lineNo++;
    start = end + 1;
  }
}

/** The first MAX_LINE_CHARS characters of a line too long to buffer, read at its offset. */
function longLineStart(file: string, entry: TooLongLineEntry): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(LINE_START_BYTES, entry.bytes));
    const bytesRead = fs.readSync(fd, buffer, 0, buffer.length, entry.offset);
    // The read may end inside a character; its replacement character is dropped.
    const start = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/\uFFFD+$/, '');
    return `${cutToChars(start, MAX_LINE_CHARS)}… [line cut: ${entry.bytes} bytes]`;
  } finally {
    fs.closeSync(fd);
  }
}
