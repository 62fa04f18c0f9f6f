import { describe, expect, it } from 'vitest';
import { usageRoute, usageView } from './usage-period';

const now = new Date(2026, 10, 28, 9, 30);

describe('usageView', () => {
  it('is the last 30 days by day, split by model, when nothing is asked', () => {
    expect(usageView({}, now)).toEqual({
      period: 'month',
      since: '2026-10-30',
      until: '2026-11-28',
      by: 'day',
      split: 'model',
    });
  });

  it('counts today in the last 7 days, and leaves all time open', () => {
    expect(usageView({ period: 'week' }, now)).toMatchObject({
      since: '2026-11-22',
      until: '2026-11-28',
    });
    expect(usageView({ period: 'all', by: 'month' }, now)).toMatchObject({
      since: null,
      until: null,
      by: 'month',
    });
  });

  it('takes custom days as given, in order, and fills a missing one', () => {
    expect(
      usageView({ period: 'custom', since: '2025-09-01', until: '2025-09-30' }, now),
    ).toMatchObject({ since: '2025-09-01', until: '2025-09-30' });
    expect(
      usageView({ period: 'custom', since: '2025-09-30', until: '2025-09-01' }, now),
    ).toMatchObject({ since: '2025-09-01', until: '2025-09-30' });
    expect(usageView({ until: '2025-09-30' }, now)).toMatchObject({
      period: 'custom',
      since: '2025-09-01',
    });
  });

  it('round-trips through the address', () => {
    const custom = usageView({ period: 'custom', since: '2025-01-01', until: '2025-02-01' }, now);
    expect(usageView(usageRoute(custom), now)).toEqual(custom);
    const week = usageView({ period: 'week', split: 'agent' }, now);
    expect(usageRoute(week)).toEqual({ period: 'week', by: 'day', split: 'agent' });
  });
});
