import fs from 'node:fs';

const CHUNK = 64 * 1024;

/** Reads single lines at known byte offsets through one open file (random access by seq). */
export class LineAtOffset {
  private readonly fd: number;
  private readonly buf = Buffer.allocUnsafe(CHUNK);

  constructor(file: string) {
    this.fd = fs.openSync(file, 'r');
  }

  read(offset: number): string {
    const parts: Buffer[] = [];
    let pos = offset;
    for (;;) {
      const n = fs.readSync(this.fd, this.buf, 0, CHUNK, pos);
      if (n === 0) break;
      const nl = this.buf.indexOf(10);
      if (nl !== -1 && nl < n) {
        parts.push(Buffer.from(this.buf.subarray(0, nl)));
        break;
      }
      parts.push(Buffer.from(this.buf.subarray(0, n)));
      pos += n;
    }
    return Buffer.concat(parts).toString('utf8');
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}
