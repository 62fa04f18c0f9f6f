import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MessageRecord } from '../../shared/task-types';
import { useTempDir } from '../jsonl/test-support/temp-dir';
import { UsageFiguresCache } from './usage-cache';
import { SCAN_START, scanUsageFigures } from './usage-scan';
import { figuresOf, type MessageFigures, type UsageMessage } from './usage-series';

const tempDir = useTempDir();
const T = '2026-01-01T00:00:00.000Z';

/** A line as MessageStore writes it (same key order). */
function line(
  seq: number,
  extra: Partial<MessageRecord> = {},
  content: string | null = 'hi',
): string {
  return JSON.stringify({
    seq,
    role: extra.role ?? 'user',
    content,
    timestamp: T,
    tokens: seq * 3,
    tokens_o200k: seq * 3,
    ...extra,
  });
}

/** What a whole JSON.parse of each readable line gives. */
function expected(text: string): MessageFigures[] {
  return text
    .split('\n')
    .slice(0, -1)
    .flatMap((l) => {
      try {
        const m = JSON.parse(l) as UsageMessage;
        return typeof m.seq === 'number' ? [figuresOf(m)] : [];
      } catch {
        return [];
      }
    });
}

async function scan(
  file: string,
): Promise<{ figures: MessageFigures[]; lines: number; offset: number }> {
  const figures: MessageFigures[] = [];
  const end = await scanUsageFigures(file, SCAN_START, (f) => figures.push(f));
  return { figures, ...end };
}

const usage = {
  input_tokens: 300,
  output_tokens: 5,
  cache_read_tokens: 20,
  cache_creation_tokens: 1,
  total_tokens: 326,
};

describe('reading usage figures from messages.jsonl', () => {
  it('gives for every line what parsing the whole line gives, whatever the content holds', async () => {
    const file = path.join(tempDir(), 'messages.jsonl');
    const text =
      [
        line(1, { role: 'system' }, 'plain'),
        line(2, {}, 'quotes " and \\" and a trailing backslash \\'),
        line(3, {}, 'fake keys ","content":"x","tokens":999,"seq":7 inside'),
        line(4, {}, '日本語のテキスト ✓ and emoji 🎉'),
        line(
          5,
          {
            role: 'assistant',
            usage,
            tool_calls: [
              { id: 'c', type: 'function', function: { name: 'f', arguments: '{"a":"\\""}' } },
            ],
          },
          null,
        ),
        line(6, { role: 'assistant', compaction_id: 1, kind: 'summary' }),
        line(7, { role: 'assistant', history_only: true }),
        // Another key order (an older writer, an import): parsed whole.
        JSON.stringify({ role: 'tool', seq: 8, tokens: 4, timestamp: 'not a date', content: 'x' }),
        '{"seq": 9, "role": "user", "content": "spaced", "tokens": 2, "timestamp": "2026-01-01T00:00:00Z"}',
        'not json at all',
        '',
        '{"seq":10,"role":"user","content":"broken',
        line(11, {}, 'x'.repeat(1_500_000)), // spans two read chunks
        line(12),
      ].join('\n') + '\n';
    fs.writeFileSync(file, text);
    const got = await scan(file);
    expect(got.figures).toEqual(expected(text));
    expect(got.figures.map((f) => f.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12]);
    expect(got.figures[4]).toMatchObject({ reported: 321, counts: true });
    expect(got.figures[5]!.counts).toBe(false);
    expect(got.lines).toBe(14);
    expect(got.offset).toBe(Buffer.byteLength(text));
  });

  it('skips JSON that is not a message and reads odd fields of a message as numbers the chart can draw', async () => {
    const file = path.join(tempDir(), 'messages.jsonl');
    const odd = [
      'null',
      '0',
      '"text"',
      '[1,2]',
      '{"tool_calls":"x"}',
      '{"seq":"a","role":5}',
      '{"seq":3,"role":"user","content":"x","tokens":"q","timestamp":7}',
      line(4),
    ];
    fs.writeFileSync(file, `${odd.join('\n')}\n`);
    const got = await scan(file);
    expect(got.figures).toEqual([
      { seq: 3, reported: null, tokens: 0, counts: true, time: null },
      { seq: 4, reported: null, tokens: 12, counts: true, time: Date.parse(T) },
    ]);
    expect(got.lines).toBe(8);
  });

  it('leaves a last line still being written for the next scan, which reads only what follows', async () => {
    const file = path.join(tempDir(), 'messages.jsonl');
    const first = `${line(1)}\n${line(2)}\n`;
    const torn = line(3).slice(0, 20);
    fs.writeFileSync(file, first + torn);
    const start = await scan(file);
    expect(start.figures.map((f) => f.seq)).toEqual([1, 2]);
    expect(start.offset).toBe(first.length);
    fs.appendFileSync(file, `${line(3).slice(20)}\n${line(4)}\n`);
    const more: MessageFigures[] = [];
    const end = await scanUsageFigures(file, start, (f) => more.push(f));
    expect(more.map((f) => f.seq)).toEqual([3, 4]);
    expect(end.lines).toBe(4);
  });

  it('a missing file has no figures', async () => {
    expect(await scan(path.join(tempDir(), 'none.jsonl'))).toEqual({
      figures: [],
      lines: 0,
      offset: 0,
    });
  });
});

describe('the usage figures cache', () => {
  const all = (samples: { length: number; at(i: number): MessageFigures }) =>
    Array.from({ length: samples.length }, (_, i) => samples.at(i));

  it('follows appends, a replaced file and a shorter one, always agreeing with a fresh read', async () => {
    const file = path.join(tempDir(), 'messages.jsonl');
    const cache = new UsageFiguresCache();
    const check = async (): Promise<void> => {
      const cached = await cache.figures(file);
      const fresh = await new UsageFiguresCache().figures(file);
      expect(all(cached.samples)).toEqual(all(fresh.samples));
      expect(cached.lines).toBe(fresh.lines);
      expect(all(cached.samples)).toEqual(expected(fs.readFileSync(file, 'utf8')));
    };
    fs.writeFileSync(file, `${line(1)}\n${line(2)}\n`);
    await check();
    fs.appendFileSync(file, `${line(3, { role: 'assistant', usage })}\n`);
    await check();
    expect((await cache.figures(file)).lines).toBe(3);
    // Replaced (a new inode), as an import or a repair would.
    const next = `${file}.new`;
    fs.writeFileSync(next, `${line(1, {}, 'other')}\n${line(2)}\n${line(3)}\n${line(4)}\n`);
    fs.renameSync(next, file);
    await check();
    fs.truncateSync(file, line(1, {}, 'other').length + 1);
    await check();
    fs.rmSync(file);
    expect((await cache.figures(file)).lines).toBe(0);
  });

  it('answers concurrent requests with one read', async () => {
    const file = path.join(tempDir(), 'messages.jsonl');
    fs.writeFileSync(file, Array.from({ length: 500 }, (_, i) => line(i + 1)).join('\n') + '\n');
    const cache = new UsageFiguresCache();
    const [a, b] = await Promise.all([cache.figures(file), cache.figures(file)]);
    expect(a.samples).toBe(b.samples);
    expect(a.samples.length).toBe(500);
  });

  it('does not keep a task bigger than its budget', async () => {
    const file = path.join(tempDir(), 'messages.jsonl');
    fs.writeFileSync(file, Array.from({ length: 2000 }, (_, i) => line(i + 1)).join('\n') + '\n');
    const cache = new UsageFiguresCache(1024);
    const a = await cache.figures(file);
    const b = await cache.figures(file);
    expect(a.samples).not.toBe(b.samples);
    expect(all(b.samples)).toEqual(all(a.samples));
  });
});
