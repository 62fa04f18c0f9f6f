import { describe, expect, it } from 'vitest';
import { isoTimestamp } from './iso-timestamp';

describe('isoTimestamp', () => {
  it('writes what toISOString writes, across years, months and the edges of a day', () => {
    const times = [
      0,
      Date.UTC(2026, 10, 26, 13, 5, 9, 7),
      Date.UTC(1999, 11, 31, 23, 59, 59, 999),
      Date.UTC(2024, 1, 29, 0, 0, 0, 0),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10000, 0, 1),
      Date.UTC(-1, 5, 15, 12),
      Date.UTC(0, 0, 1),
      -8.64e15,
      8.64e15,
    ];
    // And a spread of ordinary moments, to catch a wrong field anywhere.
    for (let t = Date.UTC(1970, 0, 1); t < Date.UTC(2100, 0, 1); t += 86_400_000 * 37 + 3_723_456) {
      times.push(t);
    }
    for (const t of times) expect(isoTimestamp(new Date(t))).toBe(new Date(t).toISOString());
  });

  it('is the present moment by default', () => {
    const before = Date.now();
    const stamp = Date.parse(isoTimestamp());
    expect(stamp).toBeGreaterThanOrEqual(before);
    expect(stamp).toBeLessThanOrEqual(Date.now());
  });

  it('refuses an invalid date as toISOString does', () => {
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});
