import fs from 'node:fs';
import path from 'node:path';
import { fsyncDirectory } from '../jsonl/fsync-dir';
import type { OffsetIndex } from '../jsonl/offset-index';
import { writeAllSync } from '../jsonl/write-all';
import { randomHex } from '../random-hex';

/** How MessageStore ends the line of a history-only message (its last key). */
const FLAG = Buffer.from(',"history_only":true');
const FLAGGED_END = Buffer.from(',"history_only":true}');
const CLOSE_BRACE = 0x7d;
const COPY_BYTES = 1 << 20;

/**
 * Rewrites messages.jsonl with the messages up to `throughSeq` (but `keep`) flagged
 * history-only: the same lines and seqs, each changed line gaining `"history_only":true` as
 * its last key, exactly as MessageStore writes a message appended history-only. Lines are
 * found through the offset index and copied byte for byte, so no line is ever parsed or held
 * whole. Returns false, writing nothing, when every such line is flagged already.
 *
 * The new file replaces the old by rename; the offset index sidecar is removed first, so a
 * reader never pairs the new lines with the old offsets (it rebuilds them, as after a crash).
 * The caller reopens its handles. `fsync` (durability 'fsync') also flushes the new file and
 * its folder before and after the rename; the rename alone already keeps a killed process
 * from leaving a mix.
 */
export function rewriteHistoryOnly(
  file: string,
  index: OffsetIndex,
  indexPath: string,
  throughSeq: number,
  keep: ReadonlySet<number>,
  options: { fsync: boolean } = { fsync: true },
): boolean {
  const fd = fs.openSync(file, 'r');
  let temp: string | undefined;
  try {
    const size = fs.fstatSync(fd).size;
    const tail = Buffer.alloc(FLAGGED_END.length);
    const inserts = flagInserts(
      (seq) => index.offsetOf(seq),
      index.count,
      size,
      throughSeq,
      keep,
      (from, to) => tail.subarray(0, fs.readSync(fd, tail, 0, to - from, from)),
    );
    if (inserts.length === 0) return false;
    temp = path.join(
      path.dirname(file),
      `.${path.basename(file)}.tmp-${process.pid}-${randomHex(6)}`,
    );
    const out = fs.openSync(temp, 'wx', 0o666);
    try {
      const buffer = Buffer.allocUnsafe(COPY_BYTES);
      let at = 0;
      const copyTo = (to: number): void => {
        while (at < to) {
          const n = fs.readSync(fd, buffer, 0, Math.min(COPY_BYTES, to - at), at);
          if (n === 0) throw new Error(`${file} shrank while it was rewritten`);
          writeAllSync(out, buffer.subarray(0, n));
          at += n;
        }
      };
      for (const brace of inserts) {
        copyTo(brace);
        writeAllSync(out, FLAG);
      }
      copyTo(size);
      if (options.fsync) fs.fsyncSync(out);
    } finally {
      fs.closeSync(out);
    }
    fs.rmSync(indexPath, { force: true });
    fs.renameSync(temp, file);
    temp = undefined;
    if (options.fsync) fsyncDirectory(path.dirname(file));
    return true;
  } finally {
    fs.closeSync(fd);
    if (temp !== undefined) fs.rmSync(temp, { force: true });
  }
}

/**
 * rewriteHistoryOnly for lines still held in memory (a batched MessageStore whose lines have
 * not reached the disk): `lines` are the file's whole content, `offsets` each line's start.
 * Returns the flagged lines and their new offsets, or undefined when nothing changes. Same
 * bytes as rewriting the file: each line gains the flag before its closing brace.
 */
export function flagHeldLines(
  lines: Buffer,
  offsets: readonly number[],
  throughSeq: number,
  keep: ReadonlySet<number>,
): { lines: Buffer; offsets: number[] } | undefined {
  const inserts = flagInserts(
    (seq) => offsets[seq - 1]!,
    offsets.length,
    lines.length,
    throughSeq,
    keep,
    (from, to) => lines.subarray(from, to),
  );
  if (inserts.length === 0) return undefined;
  const out = Buffer.allocUnsafe(lines.length + inserts.length * FLAG.length);
  let at = 0;
  let written = 0;
  for (const brace of inserts) {
    written += lines.copy(out, written, at, brace);
    written += FLAG.copy(out, written);
    at = brace;
  }
  lines.copy(out, written, at);
  // A line moves by the flags inserted before it.
  const moved: number[] = [];
  let before = 0;
  for (const offset of offsets) {
    while (before < inserts.length && inserts[before]! < offset) before++;
    moved.push(offset + before * FLAG.length);
  }
  return { lines: out, offsets: moved };
}

/**
 * Where the lines up to `throughSeq` (but `keep`) gain the flag: the offset of each one's
 * closing brace, in order. A line already flagged, or not ending as this store writes one, is
 * left out. `bytes(from, to)` gives the file's bytes [from, to) (its lines' last few bytes).
 */
function flagInserts(
  lineStart: (seq: number) => number,
  count: number,
  size: number,
  throughSeq: number,
  keep: ReadonlySet<number>,
  bytes: (from: number, to: number) => Buffer,
): number[] {
  const inserts: number[] = [];
  const last = Math.min(throughSeq, count);
  for (let seq = 1; seq <= last; seq++) {
    if (keep.has(seq)) continue;
    const start = lineStart(seq);
    const brace = (seq < count ? lineStart(seq + 1) : size) - 2; // before its '\n'
    if (brace <= start) continue;
    const end = bytes(Math.max(start, brace + 1 - FLAGGED_END.length), brace + 1);
    if (end[end.length - 1] !== CLOSE_BRACE) continue; // not a line this store wrote
    if (end.equals(FLAGGED_END)) continue;
    inserts.push(brace);
  }
  return inserts;
}
