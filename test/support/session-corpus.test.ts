import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeSessionCorpus } from './session-corpus';
import { useTempDir } from './temp-dir';

const tempDir = useTempDir('cwb-corpus-');

/** How many local calendar days `then` lies before `now`. */
function daysBefore(now: number, then: Date): number {
  const n = new Date(now);
  const midnight = (d: Date): number =>
    Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()) / 86_400_000;
  return midnight(n) - midnight(then);
}

describe('the session corpus', () => {
  // The reading-path test filters by day; CI once wrote the corpus at 00:05 and the decoy
  // "12 days ago" landed on the 13th day back, outside the day the test typed.
  it.each([
    ['just after midnight', 0, 5],
    ['at noon', 12, 0],
    ['just before midnight', 23, 55],
  ])('puts every session on its day when written %s', (_when, hour, minute) => {
    const now = new Date(2026, 10, 27, hour, minute).getTime();
    const sessions = writeSessionCorpus(path.join(tempDir(), 'sessions'), now);
    expect(sessions).toHaveLength(100);
    const days = sessions.map((s) => daysBefore(now, s.start));
    expect(days[sessions.findIndex((s) => s.role === 'target')]).toBe(2);
    expect(days[sessions.findIndex((s) => s.role === 'decoy')]).toBe(12);
    for (const [i, s] of sessions.entries()) {
      expect(s.start.getTime(), s.file).toBeLessThan(now);
      // Never today, never on the two days a test running across midnight moves in or
      // out of "the last 7 days".
      expect([0, 6, 7], `${s.file}: ${days[i]} days back`).not.toContain(days[i]);
    }
    expect(days.filter((d) => d <= 5).length).toBeGreaterThan(5);
    expect(Math.max(...days)).toBeGreaterThan(50);
  });
});
