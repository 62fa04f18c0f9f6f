import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHUNK_BYTES } from './constants';
import type { LineEntry, ReadLinesOptions } from './line-entry';
import { readLines, readLinesSync } from './line-reader';
import { useTempDir } from './test-support/temp-dir';

const tempDir = useTempDir();

async function collect(file: string, options?: ReadLinesOptions): Promise<LineEntry[]> {
  const entries: LineEntry[] = [];
  for await (const entry of readLines(file, options)) entries.push(entry);
  return entries;
}

/** What the reader must return, computed from the whole buffer by a plain split. */
function expectedLines(data: Buffer, start = 0, firstLineNo = 1): LineEntry[] {
  const entries: LineEntry[] = [];
  let offset = start;
  let lineNo = firstLineNo;
  while (offset < data.length) {
    const newline = data.indexOf(0x0a, offset);
    const stop = newline === -1 ? data.length : newline;
    const entry: LineEntry = {
      text: data.toString('utf8', offset, stop),
      offset,
      bytes: stop - offset,
      lineNo: lineNo++,
    };
    if (newline === -1) entry.partial = true;
    entries.push(entry);
    offset = stop + 1;
  }
  return entries;
}

function writeFile(name: string, data: Buffer | string): string {
  const file = path.join(tempDir(), name);
  fs.writeFileSync(file, data);
  return file;
}

/** Lines whose multi-byte characters are pushed across every 64 KiB boundary in turn. */
function multiByteContent(): Buffer {
  const samples = ['日本語のテキスト', '😀🎉 emoji 👩‍👩‍👧', 'ascii only', 'mixé ü ß 中文 🙂'];
  const lines: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < CHUNK_BYTES * 4; i++) {
    // Lengths vary by one byte-ish step so boundaries land in every position of a character.
    const line = `${i}:` + samples[i % samples.length].repeat(1 + (i % 97)) + 'x'.repeat(i % 7);
    lines.push(line);
    bytes += Buffer.byteLength(line) + 1;
  }
  return Buffer.from(lines.join('\n') + '\n');
}

describe('readLines / readLinesSync', () => {
  it('gives exact offsets and sizes for ASCII lines spanning chunk boundaries', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `line ${i} ` + 'a'.repeat((i * 37) % 300));
    const data = Buffer.from(lines.join('\n') + '\n');
    expect(data.length).toBeGreaterThan(CHUNK_BYTES * 2);
    const file = writeFile('ascii.txt', data);
    const expected = expectedLines(data);
    expect(await collect(file)).toEqual(expected);
    expect([...readLinesSync(file)]).toEqual(expected);
  });

  it('never splits multi-byte UTF-8 (Japanese, emoji) at a chunk boundary', async () => {
    const data = multiByteContent();
    const file = writeFile('utf8.txt', data);
    const expected = expectedLines(data);
    const entries = await collect(file);
    expect(entries).toEqual(expected);
    expect(entries.some((e) => 'text' in e && e.text.includes('\uFFFD'))).toBe(false);
    // Some line really does straddle a boundary with a multi-byte character on it.
    const straddling = entries.filter((e) => {
      const boundary = Math.ceil((e.offset + 1) / CHUNK_BYTES) * CHUNK_BYTES;
      return boundary < e.offset + e.bytes && data[boundary] >= 0x80;
    });
    expect(straddling.length).toBeGreaterThan(0);
    expect([...readLinesSync(file)]).toEqual(expected);
  });

  it('gives the same lines whatever chunkBytes is, down to a chunk shorter than a character', async () => {
    const data = Buffer.concat([multiByteContent().subarray(0, 20_000), Buffer.from('\n\n末尾')]);
    const file = writeFile('chunks.txt', data);
    const expected = expectedLines(data);
    for (const chunkBytes of [1, 3, 7, 4096, CHUNK_BYTES * 16]) {
      expect(await collect(file, { chunkBytes })).toEqual(expected);
      expect([...readLinesSync(file, { chunkBytes })]).toEqual(expected);
    }
    expect(() => [...readLinesSync(file, { chunkBytes: 0 })]).toThrow(/chunkBytes/);
  });

  it('reads a line split across a chunk edge exactly at every offset near the edge', async () => {
    for (const shift of [-3, -2, -1, 0, 1, 2, 3]) {
      const head = 'a'.repeat(CHUNK_BYTES + shift - 2);
      const data = Buffer.from(`${head}\n😀\n末尾\n`);
      const file = writeFile(`edge${shift}.txt`, data);
      expect(await collect(file)).toEqual(expectedLines(data));
      expect([...readLinesSync(file)]).toEqual(expectedLines(data));
    }
  });

  it('reads a start/end window with line numbers counted from firstLineNo', async () => {
    const data = multiByteContent();
    const file = writeFile('window.txt', data);
    const all = expectedLines(data);
    const from = all[40];
    const to = all[60];
    const window = { start: from.offset, end: to.offset, firstLineNo: 41 };
    const expected = all.slice(40, 60);
    expect(await collect(file, window)).toEqual(expected);
    expect([...readLinesSync(file, window)]).toEqual(expected);
  });

  it('flags a line cut by the end of a window as partial', async () => {
    const file = writeFile('cut.txt', 'alpha\nbeta\ngamma\n');
    const entries = [...readLinesSync(file, { start: 6, end: 9, firstLineNo: 2 })];
    expect(entries).toEqual([{ text: 'bet', offset: 6, bytes: 3, lineNo: 2, partial: true }]);
    expect(await collect(file, { start: 6, end: 9, firstLineNo: 2 })).toEqual(entries);
  });

  it('yields a last line without a trailing newline flagged partial', async () => {
    const file = writeFile('partial.txt', 'one\ntwo\nthr😀');
    const expected: LineEntry[] = [
      { text: 'one', offset: 0, bytes: 3, lineNo: 1 },
      { text: 'two', offset: 4, bytes: 3, lineNo: 2 },
      { text: 'thr😀', offset: 8, bytes: 7, lineNo: 3, partial: true },
    ];
    expect(await collect(file)).toEqual(expected);
    expect([...readLinesSync(file)]).toEqual(expected);
  });

  it('yields empty lines and nothing for an empty file', async () => {
    const file = writeFile('blank.txt', '\n\nx\n');
    expect([...readLinesSync(file)]).toEqual([
      { text: '', offset: 0, bytes: 0, lineNo: 1 },
      { text: '', offset: 1, bytes: 0, lineNo: 2 },
      { text: 'x', offset: 2, bytes: 1, lineNo: 3 },
    ]);
    const empty = writeFile('empty.txt', '');
    expect(await collect(empty)).toEqual([]);
    expect([...readLinesSync(empty)]).toEqual([]);
  });

  it('reports a 5 MB line over a 1 MB limit as tooLong and carries on', async () => {
    const huge = 'z'.repeat(5 * 1024 * 1024);
    const file = writeFile('huge.txt', `first\n${huge}\nafter 😀\n${huge}`);
    const options = { maxLineBytes: 1024 * 1024 };
    const expected: LineEntry[] = [
      { text: 'first', offset: 0, bytes: 5, lineNo: 1 },
      { tooLong: true, offset: 6, bytes: huge.length, lineNo: 2 },
      { text: 'after 😀', offset: 7 + huge.length, bytes: 10, lineNo: 3 },
      { tooLong: true, offset: 18 + huge.length, bytes: huge.length, lineNo: 4, partial: true },
    ];
    expect(await collect(file, options)).toEqual(expected);
    expect([...readLinesSync(file, options)]).toEqual(expected);
  });

  it('keeps a line of exactly maxLineBytes and rejects one byte more', () => {
    const file = writeFile('limit.txt', 'abcd\nabcde\n');
    expect([...readLinesSync(file, { maxLineBytes: 4 })]).toEqual([
      { text: 'abcd', offset: 0, bytes: 4, lineNo: 1 },
      { tooLong: true, offset: 5, bytes: 5, lineNo: 2 },
    ]);
  });

  it.skipIf(!fs.existsSync('/proc/self/fd'))(
    'closes the file when the consumer stops early',
    async () => {
      const data = multiByteContent();
      const file = writeFile('early.txt', data);
      const before = fs.readdirSync('/proc/self/fd').length;
      for await (const entry of readLines(file)) if (entry.lineNo === 3) break;
      for (const entry of readLinesSync(file)) if (entry.lineNo === 3) break;
      expect(fs.readdirSync('/proc/self/fd').length).toBe(before);
    },
  );

  it('rejects a negative start', () => {
    const file = writeFile('neg.txt', 'x\n');
    expect(() => [...readLinesSync(file, { start: -1 })]).toThrow(RangeError);
  });
});
