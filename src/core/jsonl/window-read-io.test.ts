import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppendLog, appendJsonLine } from './append-log';
import type { LineEntry } from './line-entry';
import { readLines, readLinesSync } from './line-reader';
import { OffsetIndex } from './offset-index';

// rchar counts every byte this process asked read() for: the honest measure of "did we
// read the whole file", independent of the page cache.
const PROC_IO = '/proc/self/io';
const hasProcIo = fs.existsSync(PROC_IO);
const FILE_BYTES = 64 * 1024 * 1024;
const BUDGET = 2 * 1024 * 1024;

function bytesRead(): number {
  const match = /^rchar:\s*(\d+)$/m.exec(fs.readFileSync(PROC_IO, 'utf8'));
  if (!match) throw new Error(`${PROC_IO} has no rchar field`);
  return Number(match[1]);
}

function seqOf(entry: LineEntry): number {
  if (!('text' in entry)) throw new Error(`line ${entry.lineNo} too long`);
  return (JSON.parse(entry.text) as { seq: number }).seq;
}

describe.skipIf(!hasProcIo)(
  `reading a window of a ${FILE_BYTES / 2 ** 20} MB file (needs ${PROC_IO})`,
  () => {
    let dir: string;
    let jsonl: string;
    let lines = 0;

    beforeAll(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-'));
      jsonl = path.join(dir, 'messages.jsonl');
      const log = new AppendLog(jsonl);
      const index = OffsetIndex.open(jsonl);
      while (log.size < FILE_BYTES) {
        lines += 1;
        const text = `メッセージ ${lines} `.repeat(20 + (lines % 80));
        index.append(appendJsonLine(log, { seq: lines, text }).offset);
      }
      index.close();
      log.close();
    });

    afterAll(() => {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('reads ~10 lines from the middle with the async reader', async () => {
      const before = bytesRead();
      const index = OffsetIndex.open(jsonl);
      expect(index.count).toBe(lines);
      const first = Math.floor(lines / 2);
      const seqs: number[] = [];
      for await (const entry of readLines(jsonl, {
        start: index.offsetOf(first),
        firstLineNo: first,
      })) {
        seqs.push(seqOf(entry));
        if (seqs.length === 10) break;
      }
      index.close();
      const delta = bytesRead() - before;
      expect(seqs).toEqual(Array.from({ length: 10 }, (_, i) => first + i));
      expect(delta).toBeLessThan(BUDGET);
    });

    it('reads ~10 lines from the middle with the sync reader', () => {
      const before = bytesRead();
      const index = OffsetIndex.open(jsonl, undefined, { readonly: true });
      const first = Math.floor(lines / 3);
      const seqs: number[] = [];
      for (const entry of readLinesSync(jsonl, {
        start: index.offsetOf(first),
        firstLineNo: first,
      })) {
        seqs.push(seqOf(entry));
        if (seqs.length === 10) break;
      }
      index.close();
      expect(seqs).toEqual(Array.from({ length: 10 }, (_, i) => first + i));
      expect(bytesRead() - before).toBeLessThan(BUDGET);
    });

    it('catches up a missing index entry without rescanning the file', () => {
      const log = new AppendLog(jsonl);
      const { offset } = appendJsonLine(log, { seq: lines + 1, text: 'unindexed' });
      log.close();
      const before = bytesRead();
      const index = OffsetIndex.open(jsonl);
      expect(index.count).toBe(lines + 1);
      expect(index.offsetOf(lines + 1)).toBe(offset);
      index.close();
      expect(bytesRead() - before).toBeLessThan(BUDGET);
    });

    it('control: a full scan does show up in rchar', () => {
      const before = bytesRead();
      let count = 0;
      for (const entry of readLinesSync(jsonl, { maxLineBytes: 0 })) if (!entry.partial) count += 1;
      expect(count).toBeGreaterThan(lines - 1);
      expect(bytesRead() - before).toBeGreaterThan(FILE_BYTES);
    });
  },
);
