import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonlEntry } from './jsonl-reader';
import { readJsonl, readJsonlSync } from './jsonl-reader';
import { useTempDir } from './test-support/temp-dir';

const tempDir = useTempDir();

async function collect(file: string, options = {}): Promise<JsonlEntry[]> {
  const entries: JsonlEntry[] = [];
  for await (const entry of readJsonl(file, options)) entries.push(entry);
  return entries;
}

describe('readJsonl / readJsonlSync', () => {
  it('reports a malformed line by file and line number and keeps reading', async () => {
    const file = path.join(tempDir(), 'messages.jsonl');
    const lines = [
      '{"seq":1}',
      '{"seq":2}',
      '',
      '{"seq": oops}',
      '   ',
      '{"seq":5,"t":"日本"}',
      '[1,2]',
    ];
    fs.writeFileSync(file, lines.join('\n') + '\n');

    const entries = [...readJsonlSync(file)];
    expect(entries.map((e) => e.lineNo)).toEqual([1, 2, 4, 6, 7]);
    expect(entries.map((e) => e.ok)).toEqual([true, true, false, true, true]);
    const bad = entries[2];
    if (bad.ok) throw new Error('expected an error entry');
    expect(bad.error).toMatch(/^messages\.jsonl line 4: malformed JSON \(.+\)$/);
    expect(bad.offset).toBe(Buffer.byteLength('{"seq":1}\n{"seq":2}\n\n'));
    const values = entries.filter((e) => e.ok).map((e) => (e.ok ? e.value : undefined));
    expect(values).toEqual([{ seq: 1 }, { seq: 2 }, { seq: 5, t: '日本' }, [1, 2]]);

    expect(await collect(file)).toEqual(entries);
  });

  it('leaves out omitMember before parsing; a damaged line fails with its own error', async () => {
    const file = path.join(tempDir(), 'session.jsonl');
    const lines = [
      '{"type":"user","message":{"toolUseResult":1},"toolUseResult":{"stdout":"日本"},"uuid":"u1"}',
      '{"type":"assistant","uuid":"u2"}',
      // Well nested, so the member is cut, but a bad token stands before it.
      '{"type":"user","bad":tru,"toolUseResult":{"stdout":"x"}}',
      '{"type":"user","toolUseResult":{"stdout":"torn',
    ];
    fs.writeFileSync(file, lines.join('\n'));
    const whole = [...readJsonlSync(file)];
    const omitted = [...readJsonlSync(file, { omitMember: 'toolUseResult', chunkBytes: 16 })];
    expect(omitted.map((e) => (e.ok ? e.value : e.error))).toEqual([
      { type: 'user', message: { toolUseResult: 1 }, uuid: 'u1' },
      { type: 'assistant', uuid: 'u2' },
      (whole[2] as { error: string }).error,
      (whole[3] as { error: string }).error,
    ]);
    expect(omitted.map(({ offset, bytes, lineNo }) => [offset, bytes, lineNo])).toEqual(
      whole.map(({ offset, bytes, lineNo }) => [offset, bytes, lineNo]),
    );
    expect(await collect(file, { omitMember: 'toolUseResult' })).toEqual(omitted);
  });

  it('reports a line over the limit without holding it', async () => {
    const file = path.join(tempDir(), 'big.jsonl');
    fs.writeFileSync(file, `{"a":1}\n"${'x'.repeat(3000)}"\n{"a":3}\n`);
    const entries = await collect(file, { maxLineBytes: 1000 });
    expect(entries.map((e) => (e.ok ? e.value : e.error))).toEqual([
      { a: 1 },
      'big.jsonl line 2: line longer than 1000 bytes',
      { a: 3 },
    ]);
  });

  it('marks an unterminated last line, parsed or not', () => {
    const file = path.join(tempDir(), 'torn.jsonl');
    fs.writeFileSync(file, '{"a":1}\n{"a":2');
    const [first, last] = [...readJsonlSync(file, { label: 'task/messages.jsonl' })];
    expect(first).toEqual({ ok: true, value: { a: 1 }, offset: 0, bytes: 7, lineNo: 1 });
    expect(last.ok).toBe(false);
    expect(last.partial).toBe(true);
    if (!last.ok) {
      expect(last.error).toMatch(
        /^task\/messages\.jsonl line 2: malformed JSON .*incomplete last line/,
      );
    }

    fs.writeFileSync(file, '{"a":1}\n{"a":2}');
    const complete = [...readJsonlSync(file)][1];
    expect(complete).toEqual({
      ok: true,
      value: { a: 2 },
      offset: 8,
      bytes: 7,
      lineNo: 2,
      partial: true,
    });
  });

  it('keeps error messages short for huge malformed lines', () => {
    const file = path.join(tempDir(), 'long-bad.jsonl');
    fs.writeFileSync(file, `{"a": ${'9'.repeat(500_000)} x}\n`);
    const [entry] = [...readJsonlSync(file)];
    expect(entry.ok).toBe(false);
    if (!entry.ok) expect(entry.error.length).toBeLessThan(400);
  });
});
