/** One line read from a file; offsets and sizes are in bytes, excluding the '\n'. */
export interface TextLineEntry {
  text: string;
  offset: number;
  bytes: number;
  lineNo: number;
  /** The read ended before a '\n' (torn tail, file still being written, or a window cut). */
  partial?: true;
}

/** A line longer than maxLineBytes: reported with its position, never held in memory. */
export interface TooLongLineEntry {
  tooLong: true;
  offset: number;
  bytes: number;
  lineNo: number;
  partial?: true;
}

export type LineEntry = TextLineEntry | TooLongLineEntry;

export interface ReadLinesOptions {
  /** First byte to read (default 0); should be the start of a line. */
  start?: number;
  /** Byte to stop before (default: the file size when reading starts). */
  end?: number;
  /** Longer lines yield a tooLong entry (default 64 MiB). */
  maxLineBytes?: number;
  /** Line number given to the line at `start` (default 1). */
  firstLineNo?: number;
  /** Bytes read at a time (default CHUNK_BYTES, 64 KiB); a batch reader of whole files reads more. */
  chunkBytes?: number;
  /** How a line's bytes become its text (default: UTF-8). */
  decode?: (bytes: Buffer, start: number, end: number) => string;
}

export function isTooLong(entry: LineEntry): entry is TooLongLineEntry {
  return 'tooLong' in entry;
}
