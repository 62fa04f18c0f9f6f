import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { chunkEnd, countO200k } from './o200k';

describe('countO200k', () => {
  it('matches gpt-tokenizer on small strings', () => {
    for (const text of ['', 'Hello, world!', 'こんにちは、世界。', 'const x = { a: [1, 2, 3] };\n']) {
      expect(countO200k(text)).toBe(countTokens(text));
    }
  });

  it('counts special-token text as plain text instead of throwing', () => {
    expect(countO200k('the <|endoftext|> marker')).toBeGreaterThan(3);
  });

  it('stays within 1 % of a whole-string count on 3 MB of text', () => {
    const words = ['alpha', 'beta', 'gamma', 'delta', 'ファイル', 'function', '{', '}', '42', 'x.y'];
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
