import path from 'node:path';
import { DEFAULT_MAX_LINE_BYTES } from './constants';
import { isTooLong } from './line-entry';
import { printable } from './printable';
import type { LineEntry, ReadLinesOptions } from './line-entry';
import { readLines, SyncLineReader } from './line-reader';
import { MemberOmitter } from './member-span';

interface JsonlPosition {
  offset: number;
  /** Bytes of the line, excluding the '\n'. */
  bytes: number;
  lineNo: number;
  /** The line had no trailing '\n' (see LineEntry.partial). */
  partial?: true;
}

export type JsonlEntry =
  ({ ok: true; value: unknown } & JsonlPosition) | ({ ok: false; error: string } & JsonlPosition);

export interface ReadJsonlOptions extends ReadLinesOptions {
  /** Names the file in error messages (default: the file's base name). */
  label?: string;
  /**
   * A top-level member of each line's object that the caller never reads: left out before
   * the line is decoded and parsed (member-span.ts). A line it cannot safely be cut from is
   * parsed whole; a line that then fails is parsed whole for its error.
   */
  omitMember?: string;
}

// A malformed multi-megabyte line must not turn into a multi-megabyte error message.
const MAX_REASON_CHARS = 200;

/** Parsed JSON lines of `path`. Bad lines come back as errors; blank lines are skipped. */
export async function* readJsonl(
  path: string,
  options: ReadJsonlOptions = {},
): AsyncGenerator<JsonlEntry> {
  const { parse, lines } = lineParser(path, options);
  for await (const line of readLines(path, lines)) {
    const entry = parse(line);
    if (entry) yield entry;
  }
}

/** Synchronous twin of readJsonl. */
export function* readJsonlSync(
  path: string,
  options: ReadJsonlOptions = {},
): Generator<JsonlEntry> {
  const { parse, lines } = lineParser(path, options);
  // Pulled from the reader directly: one generator between the file and the caller.
  const reader = new SyncLineReader(path, lines);
  try {
    for (let line = reader.next(); line !== undefined; line = reader.next()) {
      const entry = parse(line);
      if (entry) yield entry;
    }
  } finally {
    reader.close();
  }
}

/** How the lines are read (`lines`, the reader's options) and each parsed. */
function lineParser(
  filePath: string,
  options: ReadJsonlOptions,
): { parse: (line: LineEntry) => JsonlEntry | undefined; lines: ReadLinesOptions } {
  const label = options.label ?? path.basename(filePath);
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const omitter = options.omitMember !== undefined ? new MemberOmitter(options.omitMember) : null;
  const lines: ReadLinesOptions = omitter
    ? { ...options, decode: (bytes, start, end) => omitter.decode(bytes, start, end) }
    : options;
  const parse = (line: LineEntry): JsonlEntry | undefined => {
    if (isTooLong(line)) return failed(line, `line longer than ${maxLineBytes} bytes`);
    const text = line.text;
    // A line that starts with a value's first character is not blank: no trim to copy it.
    const first = text.charCodeAt(0);
    if (first !== OPEN_BRACE && first !== OPEN_BRACKET && text.trim() === '') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch (error) {
      // A member was left out: the line is parsed whole, so its error is its own.
      const whole = omitter?.lastWhole();
      if (whole === undefined) return failed(line, malformed(error));
      try {
        value = JSON.parse(whole) as unknown;
      } catch (wholeError) {
        return failed(line, malformed(wholeError));
      }
    }
    const entry: JsonlEntry = {
      ok: true,
      value,
      offset: line.offset,
      bytes: line.bytes,
      lineNo: line.lineNo,
    };
    if (line.partial) entry.partial = true;
    return entry;
  };

  function failed(line: LineEntry, reason: string): JsonlEntry {
    const torn = line.partial ? ' (incomplete last line, no trailing newline)' : '';
    const entry: JsonlEntry = {
      ok: false,
      error: `${label} line ${line.lineNo}: ${reason}${torn}`,
      offset: line.offset,
      bytes: line.bytes,
      lineNo: line.lineNo,
    };
    if (line.partial) entry.partial = true;
    return entry;
  }
  return { parse, lines };
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

function malformed(error: unknown): string {
  return `malformed JSON (${truncate(error instanceof Error ? error.message : String(error))})`;
}

function truncate(text: string): string {
  return printable(text.length <= MAX_REASON_CHARS ? text : `${text.slice(0, MAX_REASON_CHARS)}…`);
}
