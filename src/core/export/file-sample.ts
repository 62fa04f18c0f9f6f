import fs from 'node:fs';

/** A few windows of a file, read to judge how the whole of it formats or compresses. */
export interface FileSample {
  /** The file's size now (0 when it does not exist). */
  size: number;
  /** The windows read, in file order; the whole file when it fits the budget. */
  windows: { start: number; bytes: Buffer }[];
}

/** At most four windows, none under 32 KiB unless the budget is (deflate needs the context). */
const MAX_WINDOWS = 4;
const MIN_WINDOW = 32 << 10;

/**
 * Reads `budget` bytes of `file` at most: all of it when it fits, else windows spread from
 * its start to its end (a task's first messages are not like its last ones). Cost does not
 * grow with the file.
 */
export function sampleFile(file: string, budget: number): FileSample {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { size: 0, windows: [] };
    throw err;
  }
  try {
    const { size } = fs.fstatSync(fd);
    const count =
      size <= budget ? 1 : Math.max(1, Math.min(MAX_WINDOWS, Math.floor(budget / MIN_WINDOW)));
    const width = size <= budget ? size : Math.max(1, Math.floor(budget / count));
    const starts = Array.from({ length: count }, (_, i) =>
      count === 1 ? 0 : Math.floor((i * (size - width)) / (count - 1)),
    );
    const windows = starts
      .filter((start) => size > 0 && start < size)
      .map((start) => {
        const bytes = Buffer.alloc(Math.min(width, size - start));
        const read = fs.readSync(fd, bytes, 0, bytes.length, start);
        return { start, bytes: bytes.subarray(0, read) };
      });
    return { size, windows };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The complete lines of a sample (a window's partial first and last lines left out), the
 * bytes they span with their newlines, and all the bytes read (`read` − `bytes` are parts of
 * lines longer than what was read of them).
 */
export function sampleLines(sample: FileSample): { lines: string[]; bytes: number; read: number } {
  const lines: string[] = [];
  let bytes = 0;
  let read = 0;
  for (const w of sample.windows) {
    read += w.bytes.length;
    const first = w.start === 0 ? 0 : w.bytes.indexOf(10) + 1;
    const last = w.bytes.lastIndexOf(10);
    if (first <= 0 && w.start !== 0) continue;
    if (last < first) continue;
    const chunk = w.bytes.subarray(first, last + 1);
    bytes += chunk.length;
    for (const line of chunk.toString('utf8').split('\n').slice(0, -1)) {
      if (line.trim() !== '') lines.push(line);
    }
  }
  return { lines, bytes, read };
}
