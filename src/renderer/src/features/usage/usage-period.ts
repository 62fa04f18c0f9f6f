import { addDays, dayOf } from '../../format/dates';
import type { UsagePeriod, UsageRouteParams } from '../../router/route';

/** The days a Usage view covers (inclusive; null: open) and how they are grouped. */
export interface UsageView {
  period: UsagePeriod;
  since: string | null;
  until: string | null;
  by: 'day' | 'week' | 'month';
  split: 'model' | 'agent';
}

const LAST: Record<'week' | 'month', number> = { week: 7, month: 30 };

/**
 * The view an address asks for: the last 7 or 30 days up to today, all time, or the custom
 * days (a custom period without both days is the last 30 days, its days filled in).
 */
export function usageView(params: UsageRouteParams, now: Date = new Date()): UsageView {
  const by = params.by ?? 'day';
  const split = params.split ?? 'model';
  const today = dayOf(now);
  const period = params.period ?? (params.since || params.until ? 'custom' : 'month');
  if (period === 'all') return { period, since: null, until: null, by, split };
  if (period === 'custom') {
    const until = params.until ?? today;
    const since = params.since ?? addDays(until, 1 - LAST.month)!;
    return since <= until
      ? { period, since, until, by, split }
      : { period, since: until, until: since, by, split };
  }
  return { period, since: addDays(today, 1 - LAST[period])!, until: today, by, split };
}

/** The address of a view (custom days only for a custom period: the others follow today). */
export function usageRoute(view: UsageView): UsageRouteParams {
  return {
    period: view.period,
    by: view.by,
    split: view.split,
    ...(view.period === 'custom' && view.since && view.until
      ? { since: view.since, until: view.until }
      : {}),
  };
}
