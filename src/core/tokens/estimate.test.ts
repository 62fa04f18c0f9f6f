import { describe, expect, it } from 'vitest';
import { countCharacters, estimateTokens, japaneseRatio } from './estimate';

describe('estimateTokens', () => {
  it('divides English by 4, flooring', () => {
    expect(estimateTokens('Hello, world!')).toBe(3); // 13 / 4
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abc')).toBe(0);
  });

  it('divides mostly-Japanese text by 2', () => {
    const text = 'こんにちは、世界。カタカナとｶﾀｶﾅ。'; // all Japanese: 19 characters
    expect(countCharacters(text)).toEqual({ characters: 19, japanese: 19 });
    expect(estimateTokens(text)).toBe(9);
  });

  it('uses the Japanese rate at exactly 50 %', () => {
    expect(japaneseRatio('日本ab')).toBe(0.5);
    expect(estimateTokens('日本ab')).toBe(2);
  });

  it('keeps the English rate below 50 % Japanese', () => {
    const text = 'The ファイル was saved to disk'; // 4 Japanese of 26
    expect(japaneseRatio(text)).toBeLessThan(0.5);
    expect(estimateTokens(text)).toBe(Math.floor(26 / 4));
  });

  it('counts fullwidth forms, CJK punctuation and extension A as Japanese', () => {
    expect(countCharacters('ＡＢ１').japanese).toBe(3);
    expect(countCharacters('「」　').japanese).toBe(3);
    expect(countCharacters('㐀').japanese).toBe(1);
  });

  it('is 0 for the empty string', () => {
    expect(estimateTokens('')).toBe(0);
    expect(japaneseRatio('')).toBe(0);
  });

  it('counts a surrogate pair as one character, like Python len', () => {
    expect(countCharacters('😀😀😀😀')).toEqual({ characters: 4, japanese: 0 });
    expect(estimateTokens('😀😀😀😀')).toBe(1);
    // Astral ideographs (extension B) are not in the Japanese ranges.
    expect(countCharacters('𠀋').japanese).toBe(0);
    // A lone surrogate is still one character.
    expect(countCharacters('\ud800a').characters).toBe(2);
  });

  it('handles multi-megabyte strings quickly', () => {
    const text = 'あいうえおかきくけこ hello '.repeat(200_000); // 3.4 M characters, 59 % Japanese
    const started = performance.now();
    const tokens = estimateTokens(text);
    const elapsed = performance.now() - started;
    expect(tokens).toBe(Math.floor(text.length / 2));
    expect(elapsed).toBeLessThan(1000);
  });
});
