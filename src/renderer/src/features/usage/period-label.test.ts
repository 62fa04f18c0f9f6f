import { describe, expect, it } from 'vitest';
import { periodLabel } from './period-label';

const weekOf = (d: string): string => `week of ${d}`;

describe('periodLabel', () => {
  it('says days, weeks and months in the UI language', () => {
    expect(periodLabel('2025-09-03', 'day', 'en', weekOf)).toBe('Sep 3, 2025');
    expect(periodLabel('2025-09-01', 'week', 'en', weekOf)).toBe('week of Sep 1, 2025');
    expect(periodLabel('2025-09', 'month', 'en', weekOf)).toBe('September 2025');
    expect(periodLabel('2025-09', 'month', 'ja', weekOf)).toBe('2025年9月');
  });

  it('leaves a key it does not understand as it is', () => {
    expect(periodLabel('soon', 'day', 'en', weekOf)).toBe('soon');
    expect(periodLabel('2025', 'month', 'en', weekOf)).toBe('2025');
  });
});
