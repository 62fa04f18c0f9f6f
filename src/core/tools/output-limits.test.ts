import { describe, expect, it } from 'vitest';
import { cutToChars, headTailView, shortenLine } from './output-limits';

describe('output limits', () => {
  it('shortens lines without splitting surrogate pairs', () => {
    expect(shortenLine('abc', 5)).toBe('abc');
    expect(shortenLine('abcdef', 3)).toBe('abc… [line cut: 6 characters]');
    expect(cutToChars('ab😀c', 3)).toBe('ab');
    expect(cutToChars('ab😀c', 4)).toBe('ab😀');
  });

  it('keeps the start and end of a long output on line and character boundaries', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `行 ${i}`).join('\n');
    const view = headTailView(Buffer.from(text));
    expect(view.startsWith('行 0\n行 1\n')).toBe(true);
    expect(view.endsWith('行 4998\n行 4999')).toBe(true);
    expect(view).toMatch(/\n\[… \d+ bytes omitted \(\d+ bytes in all\) …\]\n/);
    expect(view).not.toContain('\uFFFD');
  });

  it('cuts on character boundaries when there are no line breaks', () => {
    const view = headTailView(Buffer.from('é'.repeat(40_000)));
    expect(view).not.toContain('\uFFFD');
    expect(view).toMatch(/^é+\n\[… \d+ bytes omitted \(80000 bytes in all\) …\]\né+$/);
  });

  it('leaves short outputs alone', () => {
    expect(headTailView(Buffer.from('short'))).toBe('short');
  });
});
