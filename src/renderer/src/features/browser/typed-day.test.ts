import { describe, expect, it } from 'vitest';
import { addDays, formatDate } from '../../format/dates';
import { parseTypedDay } from './typed-day';

describe('parseTypedDay', () => {
  const now = new Date(2026, 10, 26, 15, 0);

  it('reads the days both UI languages show and the ways people type them', () => {
    for (const text of [
      '2026-11-20',
      ' 2026/11/20 ',
      '2026.11.20',
      '2026 / 11 / 20',
      '2026年11月20日',
      '11/20',
      '11月20日',
      'Nov 20, 2026',
      '20 November 2026',
      formatDate(new Date(2026, 10, 20), 'en'),
      formatDate(new Date(2026, 10, 20), 'ja'),
    ]) {
      expect(parseTypedDay(text, now), text).toBe('2026-11-20');
    }
    expect(parseTypedDay('2026-1-5', now)).toBe('2026-01-05');
  });

  it('tells an empty field from text that is no day', () => {
    expect(parseTypedDay('  ', now)).toBe('');
    for (const text of ['2026-02-30', '2026-13-01', 'last week', '20', '2026', '11/20/20/1']) {
      expect(parseTypedDay(text, now), text).toBeNull();
    }
  });
});

describe('addDays', () => {
  it('steps over month and year ends', () => {
    expect(addDays('2026-11-30', 1)).toBe('2026-12-01');
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31');
    expect(addDays('2026-03-01', -7)).toBe('2026-02-22');
    expect(addDays('nope', 1)).toBeNull();
  });
});
