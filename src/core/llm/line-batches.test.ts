import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../../test/support/temp-dir';
import { readLineBatches } from './line-batches';

const tempDir = useTempDir('cwb-llm-lines-');

type Seen = { text?: string; tooLong?: true; lineNo: number; partial: boolean };

async function collect(file: string, chunkBytes: number, maxLineBytes?: number): Promise<Seen[]> {
  const seen: Seen[] = [];
  for await (const batch of readLineBatches(file, { chunkBytes, maxLineBytes })) {
    for (const line of batch) {
      // Copy out now: the bytes are only valid until the next batch.
      if ('tooLong' in line)
        seen.push({ tooLong: true, lineNo: line.lineNo, partial: line.partial });
      else
        seen.push({
          text: line.bytes.toString('utf8'),
          lineNo: line.lineNo,
          partial: line.partial,
        });
    }
  }
  return seen;
}

function write(content: string): string {
  const file = path.join(tempDir(), 'current.jsonl');
  fs.writeFileSync(file, content);
  return file;
}

describe('readLineBatches', () => {
  it('splits lines across every chunk boundary, multi-byte characters included', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `${i}:` + '日本語😀x'.repeat(i % 13));
    const file = write(lines.map((l) => `${l}\n`).join(''));
    for (const chunk of [1, 3, 7, 64, 4096]) {
      const seen = await collect(file, chunk);
      expect(seen).toEqual(lines.map((text, i) => ({ text, lineNo: i + 1, partial: false })));
    }
  });

  it('flags an unterminated last line as partial and keeps empty lines', async () => {
    const file = write('a\n\nlast');
    expect(await collect(file, 2)).toEqual([
      { text: 'a', lineNo: 1, partial: false },
      { text: '', lineNo: 2, partial: false },
      { text: 'last', lineNo: 3, partial: true },
    ]);
  });

  it('reports lines longer than the limit without holding them', async () => {
    const file = write(`short\n${'y'.repeat(100)}\nok\n${'z'.repeat(50)}`);
    expect(await collect(file, 16, 40)).toEqual([
      { text: 'short', lineNo: 1, partial: false },
      { tooLong: true, lineNo: 2, partial: false },
      { text: 'ok', lineNo: 3, partial: false },
      { tooLong: true, lineNo: 4, partial: true },
    ]);
  });

  it('reads an empty file as no lines', async () => {
    expect(await collect(write(''), 8)).toEqual([]);
  });
});
