import { describe, expect, it } from 'vitest';
import { borrowBuffers, giveBack, POOLED_BUFFER_BYTES } from './buffer-pool';

describe('buffer pool', () => {
  it('lends buffers given back again instead of allocating new ones', () => {
    const first = borrowBuffers(2);
    expect(first.map((b) => b.length)).toEqual([POOLED_BUFFER_BYTES, POOLED_BUFFER_BYTES]);
    giveBack(first);
    const again = borrowBuffers(2);
    expect(new Set([...again, ...first]).size).toBe(2);
    giveBack(again);
  });

  it('never lends one buffer to two borrowers at once', () => {
    const a = borrowBuffers(3);
    const b = borrowBuffers(3);
    expect(new Set([...a, ...b]).size).toBe(6);
    giveBack(a);
    giveBack(b);
  });

  it('keeps at most eight idle buffers, and none of another size', () => {
    const many = borrowBuffers(12);
    giveBack([...many, Buffer.alloc(16)]);
    const next = borrowBuffers(12);
    expect(next.filter((b) => many.includes(b))).toHaveLength(8);
    expect(next.every((b) => b.length === POOLED_BUFFER_BYTES)).toBe(true);
    giveBack(next);
  });
});
