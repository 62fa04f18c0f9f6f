import fs from 'node:fs';

const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;
const MAX_FILES = 64;

interface Counted {
  dev: number;
  ino: number;
  /** The byte after the last '\n' counted. */
  offset: number;
  lines: number;
}

/**
 * Complete lines ('\n'-terminated) of append-only files, remembered between calls: a later
 * call counts only the bytes after the last newline it saw, so the task header's "N in
 * context" costs nothing once a long current.jsonl has been counted. A file replaced
 * (compaction writes a new current.jsonl, another inode) or cut shorter is counted again.
 */
export class LineCountCache {
  private readonly files = new Map<string, Counted>();

  count(file: string): number {
    let fd: number;
    try {
      fd = fs.openSync(file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.files.delete(file);
        return 0;
      }
      throw err;
    }
    try {
      const stat = fs.fstatSync(fd);
      let known = this.files.get(file);
      if (!known || known.dev !== stat.dev || known.ino !== stat.ino || stat.size < known.offset) {
        known = { dev: stat.dev, ino: stat.ino, offset: 0, lines: 0 };
      }
      const counted = countFrom(fd, known, stat.size);
      this.files.delete(file);
      this.files.set(file, counted);
      if (this.files.size > MAX_FILES) this.files.delete(this.files.keys().next().value as string);
      return counted.lines;
    } finally {
      fs.closeSync(fd);
    }
  }
}

function countFrom(fd: number, from: Counted, size: number): Counted {
  let { offset, lines } = from;
  let position = offset;
  const buf = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(1, size - position)));
  while (position < size) {
    const n = fs.readSync(fd, buf, 0, Math.min(buf.length, size - position), position);
    if (n === 0) break;
    for (let i = buf.indexOf(NEWLINE, 0); i !== -1 && i < n; i = buf.indexOf(NEWLINE, i + 1)) {
      lines++;
      offset = position + i + 1;
    }
    position += n;
  }
  return { ...from, offset, lines };
}
