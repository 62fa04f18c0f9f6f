import { describe, expect, it } from 'vitest';
import { dayEndIso, dayStartIso, formatDate, parseDay } from './dates';
import { formatDuration } from './duration';
import { compactNumber, formatBytes, formatNumber } from './numbers';

describe('formats follow the UI language, not the OS', () => {
  it('writes durations with the language units', () => {
    expect(formatDuration(95_000, 'en')).toBe('1m 35s');
    expect(formatDuration(95_000, 'ja')).toBe('1分35秒');
    expect(formatDuration(2 * 3600_000 + 5 * 60_000, 'ja')).toBe('2時間5分');
    expect(formatDuration(3 * 86_400_000, 'en')).toBe('3d');
    expect(formatDuration(-1, 'ja')).toBe('—');
  });

  it('shortens numbers the way each language does', () => {
    expect(compactNumber(49_100, 'en')).toBe('49.1K');
    expect(compactNumber(49_100, 'ja')).toBe('4.9万');
    expect(formatNumber(1234.5, 'ja')).toBe('1,234.5');
    expect(formatBytes(1536, 'en')).toBe('1.5 kB');
    expect(formatBytes(12, 'en')).toBe('12 bytes');
  });

  it('writes a day in the language, and bounds it by local midnight', () => {
    const day = parseDay('2025-06-01')!;
    expect(formatDate(day, 'en')).toBe('Jun 1, 2025');
    expect(formatDate(day, 'ja')).toBe('2025/06/01');
    expect(parseDay('2025-02-30')).toBeNull();
    expect(new Date(dayStartIso('2025-06-01')!).getDate()).toBe(1);
    expect(new Date(dayStartIso('2025-06-01')!).getHours()).toBe(0);
    const end = new Date(dayEndIso('2025-06-01')!);
    expect([end.getDate(), end.getHours(), end.getMinutes()]).toEqual([1, 23, 59]);
    expect(dayStartIso('')).toBeNull();
  });
});
