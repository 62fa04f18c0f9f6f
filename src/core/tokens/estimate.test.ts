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

  it('agrees with a code-point count wherever the first Japanese or astral character sits', () => {
    // Python's len and a plain range check over code points: what the seed's figure means.
    const reference = (text: string) => {
      const points = Array.from(text);
      const japanese = points.filter((ch) => {
        const c = ch.codePointAt(0)!;
        return (
          (c >= 0x3000 && c <= 0x30ff) ||
          (c >= 0x31f0 && c <= 0x31ff) ||
          (c >= 0x3400 && c <= 0x4dbf) ||
          (c >= 0x4e00 && c <= 0x9fff) ||
          (c >= 0xff00 && c <= 0xffef)
        );
      }).length;
      return { characters: points.length, japanese };
    };
    const pieces = ['a', 'é', '─', '→', 'あ', '漢', 'ｱ', '😀', '\ud800', '\udc00', ' ', '㆐', '〿'];
    let seed = 1;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (let n = 0; n < 500; n++) {
      let text = '';
      const length = next() % 40;
      for (let i = 0; i < length; i++) text += pieces[next() % pieces.length];
      expect(countCharacters(text), JSON.stringify(text)).toEqual(reference(text));
    }
    // Non-Japanese non-ASCII before the first special unit is counted unit by unit.
    expect(countCharacters('é─→ あ😀')).toEqual({ characters: 6, japanese: 1 });
    // U+3190 (kanbun) lies between the listed ranges and is not Japanese here.
    expect(countCharacters('㆐').japanese).toBe(0);
  });

  it('handles multi-megabyte strings quickly', () => {
    const text = 'あいうえおかきくけこ hello '.repeat(200_000); // 3.4 M characters, 59 % Japanese
    const started = performance.now();
    const tokens = estimateTokens(text);
    const elapsed = performance.now() - started;
    expect(tokens).toBe(Math.floor(text.length / 2));
    // Not a speed measure (the bench has those): a quadratic scan would take minutes here.
    expect(elapsed).toBeLessThan(10_000);
  });
});
