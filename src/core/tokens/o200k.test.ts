import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { chunkEnd, countO200k } from './o200k';

describe('countO200k', () => {
  it('matches gpt-tokenizer on small strings', () => {
    for (const text of [
      '',
      'Hello, world!',
      'こんにちは、世界。',
      'const x = { a: [1, 2, 3] };\n',
    ]) {
      expect(countO200k(text)).toBe(countTokens(text));
    }
  });

  it('counts special-token text as plain text instead of throwing', () => {
    expect(countO200k('the <|endoftext|> marker')).toBeGreaterThan(3);
  });

  it('stays within 1 % of a whole-string count on 3 MB of text', () => {
    const words = [
      'alpha',
      'beta',
      'gamma',
      'delta',
      'ファイル',
      'function',
      '{',
      '}',
      '42',
      'x.y',
    ];
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; size < 3_000_000; i++) {
      const word = words[(i * 7 + (i >> 3)) % words.length] ?? 'w';
      const sep = i % 13 === 12 ? '\n' : i % 29 === 28 ? '\n\n  ' : ' ';
      parts.push(word, sep);
      size += word.length + sep.length;
    }
    const text = parts.join('');
    const whole = countTokens(text);
    const chunked = countO200k(text);
    expect(Math.abs(chunked - whole) / whole).toBeLessThan(0.01);
  });

  it('cuts very long runs of one kind instead of stalling, staying close to the exact count', () => {
    for (const run of ['a'.repeat(16_000), '='.repeat(16_000)]) {
      const exact = countTokens(run);
      expect(Math.abs(countO200k(run) - exact) / exact).toBeLessThan(0.03);
    }
    const started = performance.now();
    const huge = `${'a'.repeat(500_000)} ${'='.repeat(300_000)}${' '.repeat(200_000)}x`;
    expect(countO200k(huge)).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('keeps surrogate pairs whole when cutting a run', () => {
    expect(countO200k('𠀋'.repeat(3000))).toBeGreaterThan(0);
  });

  it('counts a 3 MB text without any whitespace', () => {
    const text = 'aB3+/'.repeat(600_000);
    expect(countO200k(text)).toBeGreaterThan(0);
  });
});

describe('chunkEnd', () => {
  it('cuts after a newline run, before the next line', () => {
    const text = 'aaaa\n\nbbbb cccc';
    expect(chunkEnd(text, 0, 8)).toBe(6);
  });

  it('falls back to before a space', () => {
    const text = 'aaaaaa bbbbbbbbbb';
    expect(chunkEnd(text, 0, 8)).toBe(6);
  });

  it('never splits a surrogate pair on a hard cut', () => {
    const text = 'aaa😀aaaaaaaa';
    expect(chunkEnd(text, 0, 4)).toBe(3);
  });
});
