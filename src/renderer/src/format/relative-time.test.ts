import { describe, expect, it } from 'vitest';
import { compactNumber } from './numbers';
import { relativeTime } from './relative-time';

describe('table formats', () => {
  const now = Date.parse('2025-06-01T12:00:00Z');
  it('says how long ago', () => {
    expect(relativeTime('2025-06-01T11:59:30Z', now)).toBe('just now');
    expect(relativeTime('2025-06-01T11:55:00Z', now)).toBe('5 minutes ago');
    expect(relativeTime('2025-05-31T12:00:00Z', now)).toBe('yesterday');
    expect(relativeTime('2025-05-31T12:25:00Z', now)).toBe('yesterday');
    expect(relativeTime('2025-05-31T14:00:00Z', now)).toBe('22 hours ago');
    expect(relativeTime('2025-06-01T11:00:30Z', now)).toBe('1 hour ago');
    expect(relativeTime('not a date', now)).toBe('—');
  });
  it('shortens big numbers', () => {
    expect(compactNumber(999)).toBe('999');
    expect(compactNumber(12_345)).toBe('12.3K');
  });
});
