import { describe, expect, it } from 'vitest';
import { lineChunks } from './line-chunks';

describe('lineChunks', () => {
  it('joins lines into pieces of at least the chunk size, losing and reordering nothing', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `${'x'.repeat(i % 7)}${i}\n`);
    const chunks = [...lineChunks(lines, 50)];
    expect(chunks.join('')).toBe(lines.join(''));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.length).toBeLessThan(lines.length / 5);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.length).toBeGreaterThanOrEqual(50);
  });

  it('keeps a line longer than the chunk size whole, and yields nothing for no lines', () => {
    const long = `${'y'.repeat(500)}\n`;
    expect([...lineChunks(['a\n', long, 'b\n'], 100)]).toEqual([`a\n${long}`, 'b\n']);
    expect([...lineChunks([], 100)]).toEqual([]);
  });
});
