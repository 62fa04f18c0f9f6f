import { describe, expect, it } from 'vitest';
import { firstMark, markParts } from './mark-parts';

describe('markParts', () => {
  it('cuts the text at every occurrence, ignoring case, keeping the text as written', () => {
    expect(markParts('Fix foo.py, then FOO.PY again', 'foo.py')).toEqual([
      { text: 'Fix ', marked: false },
      { text: 'foo.py', marked: true },
      { text: ', then ', marked: false },
      { text: 'FOO.PY', marked: true },
      { text: ' again', marked: false },
    ]);
  });

  it('gives the text whole without a mark or without an occurrence', () => {
    expect(markParts('abc', undefined)).toEqual([{ text: 'abc', marked: false }]);
    expect(markParts('abc', 'z')).toEqual([{ text: 'abc', marked: false }]);
  });

  it('joins back to the same text', () => {
    const text = 'aaaa a aa';
    expect(
      markParts(text, 'aa')
        .map((p) => p.text)
        .join(''),
    ).toBe(text);
  });

  it('finds the first occurrence', () => {
    expect(firstMark('x Needle y needle', 'needle')).toBe(2);
    expect(firstMark('x', 'needle')).toBe(-1);
    expect(firstMark('x', undefined)).toBe(-1);
  });
});
