import { describe, expect, it } from 'vitest';
import { randomHex } from './random-hex';

describe('randomHex', () => {
  it('gives exactly two lowercase hex digits per byte', () => {
    for (const bytes of [1, 4, 6, 9])
      expect(randomHex(bytes)).toMatch(new RegExp(`^[0-9a-f]{${bytes * 2}}$`));
  });

  it('does not repeat itself over many names', () => {
    const names = new Set(Array.from({ length: 20_000 }, () => randomHex(6)));
    expect(names.size).toBe(20_000);
  });

  it('uses every digit in every position', () => {
    const seen = Array.from({ length: 12 }, () => new Set<string>());
    for (let i = 0; i < 2000; i++) [...randomHex(6)].forEach((d, at) => seen[at]!.add(d));
    expect(seen.map((s) => s.size)).toEqual(Array(12).fill(16));
  });
});
