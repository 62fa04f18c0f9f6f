import path from 'node:path';
import { DEFAULT_MAX_LINE_BYTES } from './constants';
import { isTooLong } from './line-entry';
import { printable } from './printable';
import type { LineEntry, ReadLinesOptions } from './line-entry';
import { readLines, readLinesSync } from './line-reader';

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
}

// A malformed multi-megabyte line must not turn into a multi-megabyte error message.
const MAX_REASON_CHARS = 200;

/** Parsed JSON lines of `path`. Bad lines come back as errors; blank lines are skipped. */
export async function* readJsonl(
  path: string,
  options: ReadJsonlOptions = {},
): AsyncGenerator<JsonlEntry> {
  const parse = lineParser(path, options);
  for await (const line of readLines(path, options)) {
    const entry = parse(line);
    if (entry) yield entry;
  }
}

/** Synchronous twin of readJsonl. */
export function* readJsonlSync(
  path: string,
  options: ReadJsonlOptions = {},
): Generator<JsonlEntry> {
  const parse = lineParser(path, options);
  for (const line of readLinesSync(path, options)) {
    const entry = parse(line);
    if (entry) yield entry;
  }
}

function lineParser(
  filePath: string,
  options: ReadJsonlOptions,
): (line: LineEntry) => JsonlEntry | undefined {
  const label = options.label ?? path.basename(filePath);
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  return (line) => {
    const position: JsonlPosition = { offset: line.offset, bytes: line.bytes, lineNo: line.lineNo };
    if (line.partial) position.partial = true;
    const where = `${label} line ${line.lineNo}`;
    const torn = line.partial ? ' (incomplete last line, no trailing newline)' : '';
    if (isTooLong(line)) {
      return {
        ok: false,
        error: `${where}: line longer than ${maxLineBytes} bytes${torn}`,
        ...position,
      };
    }
    if (line.text.trim() === '') return undefined;
    try {
      return { ok: true, value: JSON.parse(line.text) as unknown, ...position };
    } catch (error) {
      const reason = truncate(error instanceof Error ? error.message : String(error));
      return { ok: false, error: `${where}: malformed JSON (${reason})${torn}`, ...position };
    }
  };
}

function truncate(text: string): string {
  return printable(text.length <= MAX_REASON_CHARS ? text : `${text.slice(0, MAX_REASON_CHARS)}…`);
}
