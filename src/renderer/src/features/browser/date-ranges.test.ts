import { describe, expect, it } from 'vitest';
import { rangeDays, rangeOf } from './date-ranges';

describe('quick date ranges', () => {
  const now = new Date(2026, 2, 3, 0, 30);

  it('are whole local days ending today', () => {
    expect(rangeDays('today', now)).toEqual({ from: '2026-03-03', to: '2026-03-03' });
    expect(rangeDays('last7', now)).toEqual({ from: '2026-02-25', to: '2026-03-03' });
    expect(rangeDays('last30', now)).toEqual({ from: '2026-02-02', to: '2026-03-03' });
  });

  it('are recognised in the days on screen, and only when both ends match', () => {
    expect(rangeOf({ from: '2026-02-25', to: '2026-03-03' }, now)).toBe('last7');
    expect(rangeOf({ from: '2026-02-25', to: '' }, now)).toBeNull();
    expect(rangeOf({ from: '', to: '' }, now)).toBeNull();
  });
});
