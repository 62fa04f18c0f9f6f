import crypto from 'node:crypto';
import fs from 'node:fs';

/** Bytes hashed at each end of what was read. */
const EDGE_BYTES = 4096;

/**
 * A fingerprint of the first `length` bytes of a file: its length, its first 4 KiB and the
 * 4 KiB before `length`. Cheap to check before every sync (at most 8 KiB read), and it
 * changes when the file was truncated, replaced or rewritten where it was already read —
 * except for a rewrite that keeps both ends, which no agent does to a session log.
 */
export function fingerprint(file: string, length: number): string {
  const hash = crypto.createHash('sha256').update(`${length}:`);
  if (length === 0) return hash.digest('hex');
  const fd = fs.openSync(file, 'r');
  try {
    hash.update(readAt(fd, 0, Math.min(EDGE_BYTES, length)));
    if (length > EDGE_BYTES) {
      const size = Math.min(EDGE_BYTES, length - EDGE_BYTES);
      hash.update(readAt(fd, length - size, size));
    }
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, buffer, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return buffer.subarray(0, done);
}

/** A uuid v4 derived from a text: the same session thread always gets the same task id. */
export function stableUuid(text: string): string {
  const hex = crypto.createHash('sha256').update(text).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
