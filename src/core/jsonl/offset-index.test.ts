import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppendLog, appendJsonLine } from './append-log';
import { readLinesSync } from './line-reader';
import { OffsetIndex, PENDING_ENTRIES } from './offset-index';
import { useTempDir } from './test-support/temp-dir';

const tempDir = useTempDir();

interface Fixture {
  jsonl: string;
  idx: string;
  offsets: number[];
}

/** A JSONL file of `count` varied lines (multi-byte, some long) and their true offsets. */
function writeJsonl(count: number): Fixture {
  const jsonl = path.join(tempDir(), 'messages.jsonl');
  const log = new AppendLog(jsonl);
  const offsets: number[] = [];
  for (let seq = 1; seq <= count; seq++) {
    const text = seq % 10 === 0 ? 'long '.repeat(20_000) : `メッセージ ${seq} 😀`.repeat(seq % 4);
    offsets.push(appendJsonLine(log, { seq, text }).offset);
  }
  log.close();
  return { jsonl, idx: `${jsonl}.idx`, offsets };
}

function offsetsOf(index: OffsetIndex): number[] {
  return Array.from({ length: index.count }, (_, i) => index.offsetOf(i + 1));
}

function seqAt(jsonl: string, offset: number): number {
  for (const line of readLinesSync(jsonl, { start: offset })) {
    if ('text' in line) return (JSON.parse(line.text) as { seq: number }).seq;
  }
  throw new Error('no line');
}

/** Private index copies this process has in the temp dir (readonly repairs). */
function privateCopies(): string[] {
  return fs
    .readdirSync(os.tmpdir())
    .filter((f) => f.startsWith(`cwb-offset-index-${process.pid}-`));
}

function idxEntries(idx: string): number {
  return fs.statSync(idx).size / 8;
}

describe('OffsetIndex', () => {
  it('builds the index from the JSONL file and points at every line', () => {
    const { jsonl, idx, offsets } = writeJsonl(200);
    const index = OffsetIndex.open(jsonl);
    expect(index.count).toBe(200);
    expect(offsetsOf(index)).toEqual(offsets);
    for (const lineNo of [1, 2, 10, 99, 200])
      expect(seqAt(jsonl, index.offsetOf(lineNo))).toBe(lineNo);
    index.close();
    expect(idxEntries(idx)).toBe(200);
    // Entries are little-endian uint64.
    const raw = fs.readFileSync(idx);
    expect(Number(raw.readBigUInt64LE(8 * 7))).toBe(offsets[7]);
  });

  it('is kept in step by the writer and reopens without changes', () => {
    const { jsonl, idx, offsets } = writeJsonl(5);
    const index = OffsetIndex.open(jsonl);
    const log = new AppendLog(jsonl);
    for (let seq = 6; seq <= 8; seq++) {
      const { offset } = appendJsonLine(log, { seq });
      index.append(offset);
      offsets.push(offset);
    }
    log.close();
    index.close();
    const before = fs.readFileSync(idx);
    const reopened = OffsetIndex.open(jsonl);
    expect(offsetsOf(reopened)).toEqual(offsets);
    reopened.close();
    expect(fs.readFileSync(idx).equals(before)).toBe(true);
  });

  it('catches up lines written after the last index entry', () => {
    const { jsonl, idx, offsets } = writeJsonl(30);
    OffsetIndex.open(jsonl).close();
    // Crash between writing lines and their index entries.
    const log = new AppendLog(jsonl);
    offsets.push(appendJsonLine(log, { seq: 31 }).offset, appendJsonLine(log, { seq: 32 }).offset);
    log.close();
    const index = OffsetIndex.open(jsonl);
    expect(index.count).toBe(32);
    expect(offsetsOf(index)).toEqual(offsets);
    expect(seqAt(jsonl, index.offsetOf(32))).toBe(32);
    index.close();
    expect(idxEntries(idx)).toBe(32);
  });

  it('drops entries for lines cut off the JSONL file', () => {
    const { jsonl, idx, offsets } = writeJsonl(40);
    OffsetIndex.open(jsonl).close();
    fs.truncateSync(jsonl, offsets[25]);
    const index = OffsetIndex.open(jsonl);
    expect(index.count).toBe(25);
    expect(offsetsOf(index)).toEqual(offsets.slice(0, 25));
    index.close();
    expect(idxEntries(idx)).toBe(25);
  });

  it('drops the entry of a last line that lost its newline and ignores a torn tail', () => {
    const { jsonl, offsets } = writeJsonl(12);
    OffsetIndex.open(jsonl).close();
    fs.truncateSync(jsonl, offsets[11] + 3); // line 12 now torn
    const index = OffsetIndex.open(jsonl);
    expect(index.count).toBe(11);
    index.close();
    fs.appendFileSync(jsonl, 'rest of a torn line\n{"seq":13}\n{"partial');
    const again = OffsetIndex.open(jsonl);
    expect(again.count).toBe(13);
    expect(again.offsetOf(13)).toBe(offsets[11] + 3 + 'rest of a torn line\n'.length);
    again.close();
  });

  it('drops a torn index entry', () => {
    const { jsonl, idx, offsets } = writeJsonl(9);
    OffsetIndex.open(jsonl).close();
    fs.truncateSync(idx, 8 * 9 - 3);
    const index = OffsetIndex.open(jsonl);
    expect(offsetsOf(index)).toEqual(offsets);
    index.close();
    expect(idxEntries(idx)).toBe(9);
  });

  it.each([
    ['garbage bytes', (raw: Buffer) => raw.fill(0xab)],
    ['a zero-filled tail', (raw: Buffer) => raw.fill(0, raw.length - 24)],
    [
      'a shifted last entry',
      (raw: Buffer) =>
        raw.writeBigUInt64LE(raw.readBigUInt64LE(raw.length - 8) + 1n, raw.length - 8),
    ],
    ['a wrong first entry', (raw: Buffer) => raw.writeBigUInt64LE(5n, 0)],
  ])('rebuilds an index with %s', (_name, damage) => {
    const { jsonl, idx, offsets } = writeJsonl(50);
    OffsetIndex.open(jsonl).close();
    const raw = fs.readFileSync(idx);
    damage(raw);
    fs.writeFileSync(idx, raw);
    const index = OffsetIndex.open(jsonl);
    expect(offsetsOf(index)).toEqual(offsets);
    index.close();
    expect(idxEntries(idx)).toBe(50);
  });

  it('rejects out-of-range lines, backwards offsets and use after close', () => {
    const { jsonl } = writeJsonl(3);
    const index = OffsetIndex.open(jsonl);
    expect(() => index.offsetOf(0)).toThrow(RangeError);
    expect(() => index.offsetOf(4)).toThrow(RangeError);
    expect(() => index.offsetOf(1.5)).toThrow(RangeError);
    expect(() => index.append(index.offsetOf(3))).toThrow(RangeError);
    index.close();
    expect(() => index.offsetOf(1)).toThrow(/after close/);
  });

  it('handles a missing or empty JSONL file', () => {
    const jsonl = path.join(tempDir(), 'none.jsonl');
    const index = OffsetIndex.open(jsonl);
    expect(index.count).toBe(0);
    index.close();
    fs.writeFileSync(jsonl, '');
    const empty = OffsetIndex.open(jsonl, path.join(tempDir(), 'custom.idx'));
    expect(empty.count).toBe(0);
    empty.append(0);
    expect(empty.offsetOf(1)).toBe(0);
    empty.close();
  });

  describe('readonly', () => {
    it('never writes the sidecar yet answers from a repaired private copy', () => {
      const { jsonl, idx, offsets } = writeJsonl(20);
      OffsetIndex.open(jsonl).close();
      offsets.push(fs.statSync(jsonl).size);
      fs.appendFileSync(jsonl, '{"seq":21}\n');
      const before = fs.readFileSync(idx);

      const index = OffsetIndex.open(jsonl, idx, { readonly: true });
      expect(privateCopies()).toHaveLength(1);
      expect(index.count).toBe(21);
      expect(seqAt(jsonl, index.offsetOf(21))).toBe(21);
      expect(offsetsOf(index)).toEqual(offsets);
      expect(() => index.append(10 ** 9)).toThrow(/readonly/);
      index.close();

      expect(fs.readFileSync(idx).equals(before)).toBe(true);
      expect(privateCopies()).toEqual([]);
    });

    it('works without a sidecar and does not create one', () => {
      const { jsonl, idx, offsets } = writeJsonl(15);
      const index = OffsetIndex.open(jsonl, idx, { readonly: true });
      expect(offsetsOf(index)).toEqual(offsets);
      index.close();
      expect(fs.existsSync(idx)).toBe(false);
    });

    it('uses a consistent sidecar directly, without a private copy', () => {
      const { jsonl, idx, offsets } = writeJsonl(15);
      OffsetIndex.open(jsonl).close();
      const index = OffsetIndex.open(jsonl, idx, { readonly: true });
      expect(privateCopies()).toEqual([]);
      expect(offsetsOf(index)).toEqual(offsets);
      index.close();
    });
  });
});

describe('OffsetIndex when an entry cannot be written or is rolled back', () => {
  it('a failed entry write leaves no partial entry; the next one is aligned', () => {
    const { jsonl, idx, offsets } = writeJsonl(3);
    const index = OffsetIndex.open(jsonl);
    const log = new AppendLog(jsonl);
    const { offset } = appendJsonLine(log, { seq: 4 });
    const real = fs.writeSync;
    // 3 of the entry's 8 bytes land, then the disk is full.
    let calls = 0;
    (fs as unknown as { writeSync: unknown }).writeSync = (
      fd: number,
      buffer: Buffer,
      off = 0,
    ): number => {
      if (calls++ > 0) throw Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' });
      return real(fd, buffer, off, 3);
    };
    index.append(offset);
    try {
      expect(() => index.flush()).toThrow(/ENOSPC/);
    } finally {
      (fs as unknown as { writeSync: typeof real }).writeSync = real;
    }
    // The entry is still known in memory, and the file holds no partial one.
    expect(index.count).toBe(4);
    expect(fs.statSync(idx).size).toBe(3 * 8);
    index.flush();
    expect(fs.statSync(idx).size).toBe(4 * 8);
    expect(offsetsOf(index)).toEqual([...offsets, offset]);
    log.close();
    index.close();
  });

  it('keeps appended entries in memory and writes them in batches, on flush and on close', () => {
    const jsonl = path.join(tempDir(), 'messages.jsonl');
    const idx = `${jsonl}.idx`;
    const log = new AppendLog(jsonl);
    const index = OffsetIndex.open(jsonl);
    const written: number[] = [];
    for (let seq = 1; seq <= PENDING_ENTRIES + 5; seq++) {
      const { offset } = appendJsonLine(log, { seq });
      index.append(offset);
      written.push(offset);
    }
    // One batch went out when the next entry found it full; the rest wait in memory.
    expect(idxEntries(idx)).toBe(PENDING_ENTRIES);
    expect(index.count).toBe(PENDING_ENTRIES + 5);
    expect(offsetsOf(index)).toEqual(written);
    index.truncate(PENDING_ENTRIES + 2);
    expect(offsetsOf(index)).toEqual(written.slice(0, PENDING_ENTRIES + 2));
    index.flush();
    expect(idxEntries(idx)).toBe(PENDING_ENTRIES + 2);
    index.truncate(PENDING_ENTRIES + 1);
    index.append(written[PENDING_ENTRIES + 1]!);
    index.append(written[PENDING_ENTRIES + 2]!);
    expect(idxEntries(idx)).toBe(PENDING_ENTRIES + 1);
    index.close();
    log.close();
    expect(idxEntries(idx)).toBe(PENDING_ENTRIES + 3);
    const reopened = OffsetIndex.open(jsonl);
    expect(offsetsOf(reopened)).toEqual(written);
    reopened.close();
  });

  it('truncate forgets the last entries, in memory and on disk', () => {
    const { jsonl, idx, offsets } = writeJsonl(4);
    const index = OffsetIndex.open(jsonl);
    index.truncate(2);
    expect(index.count).toBe(2);
    expect(idxEntries(idx)).toBe(2);
    expect(() => index.truncate(3)).toThrow(RangeError);
    index.append(offsets[2]!);
    expect(offsetsOf(index)).toEqual(offsets.slice(0, 3));
    index.close();
  });
});
