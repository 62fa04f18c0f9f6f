import { describe, expect, it } from 'vitest';
import { cutIndex } from './utf16-cut';

describe('cutIndex', () => {
  it('steps back before a surrogate pair that the cut would split, and nowhere else', () => {
    const text = 'ab🙂cd';
    expect(cutIndex(text, 2)).toBe(2);
    expect(cutIndex(text, 3)).toBe(2);
    expect(cutIndex(text, 4)).toBe(4);
    expect(cutIndex(text, 0)).toBe(0);
    expect(cutIndex(text, text.length)).toBe(text.length);
  });
});
