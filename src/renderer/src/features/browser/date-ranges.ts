import { addDays, dayOf } from '../../format/dates';

/** The quick choices of the Created filter: each is a run of whole local days ending today. */
export const QUICK_RANGES = ['today', 'last7', 'last30'] as const;
export type QuickRange = (typeof QUICK_RANGES)[number];

const DAYS: Record<QuickRange, number> = { today: 1, last7: 7, last30: 30 };

/** The from/to days a quick choice sets (today included: "last 7 days" is today and the six before). */
export function rangeDays(range: QuickRange, now: Date = new Date()): { from: string; to: string } {
  const to = dayOf(now);
  return { from: addDays(to, 1 - DAYS[range])!, to };
}

/** The quick choice the days on screen amount to, if any. */
export function rangeOf(
  days: { from: string; to: string },
  now: Date = new Date(),
): QuickRange | null {
  return (
    QUICK_RANGES.find((r) => {
      const d = rangeDays(r, now);
      return d.from === days.from && d.to === days.to;
    }) ?? null
  );
}
