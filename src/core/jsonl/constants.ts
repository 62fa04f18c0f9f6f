/** Files are read in chunks of this size so memory never depends on file size. */
export const CHUNK_BYTES = 64 * 1024;

/** Default cap on one buffered line; longer lines are reported, never held in memory. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

export const NEWLINE = 0x0a;
