import type { KeyboardEvent } from 'react';
import { useT } from '../../i18n/use-t';
import { DayField } from './day-field';
import { QUICK_RANGES, rangeDays, rangeOf, type QuickRange } from './date-ranges';
import { browserStrings } from './strings';

export interface DayRange {
  /** yyyy-mm-dd, '' when open. */
  from: string;
  to: string;
}

const RANGE_LABEL = {
  today: 'rangeToday',
  last7: 'rangeLast7',
  last30: 'rangeLast30',
} as const satisfies Record<QuickRange, string>;

/**
 * The Created filter: quick choices (today, the last 7 or 30 days; pressing the chosen one
 * again clears it) and the two days, typed. `d` on the list focuses the choices, ← → move
 * among them, ↓ goes on to the list (tasks-page.tsx).
 */
export function DateRangeFilter({
  from,
  to,
  onChange,
}: DayRange & { onChange(r: DayRange): void }) {
  const t = useT(browserStrings);
  const now = new Date();
  const chosen = rangeOf({ from, to }, now);
  const pick = (range: QuickRange): void =>
    onChange(chosen === range ? { from: '', to: '' } : rangeDays(range, now));
  const onChoicesKey = (e: KeyboardEvent<HTMLSpanElement>): void => {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    const buttons = [...e.currentTarget.querySelectorAll<HTMLButtonElement>('button')];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (at < 0) return;
    e.preventDefault();
    const next = (at + (e.key === 'ArrowRight' ? 1 : -1) + buttons.length) % buttons.length;
    buttons[next]!.focus();
  };
  return (
    <div className="date-range" role="group" aria-label={t('created')}>
      <span className="date-range-label">{t('created')}</span>
      <span className="date-quick" onKeyDown={onChoicesKey}>
        {QUICK_RANGES.map((range) => (
          <button
            key={range}
            type="button"
            className="chip range-chip"
            data-range={range}
            aria-pressed={chosen === range}
            onClick={() => pick(range)}
          >
            {t(RANGE_LABEL[range])}
          </button>
        ))}
      </span>
      <DayField
        name="from"
        label={t('from')}
        fullLabel={`${t('created')} ${t('from')}`}
        value={from}
        max={to || undefined}
        // A start after the end would match nothing: the end follows it.
        onChange={(day) => onChange({ from: day, to: day && to && day > to ? day : to })}
      />
      <DayField
        name="to"
        label={t('to')}
        fullLabel={`${t('created')} ${t('to')}`}
        value={to}
        min={from || undefined}
        onChange={(day) => onChange({ from: day && from && day < from ? day : from, to: day })}
      />
    </div>
  );
}

/** Focuses the chosen quick range (or the first): the `d` key of the task list. */
export function focusDateRange(): boolean {
  const choices = document.querySelector('.date-quick');
  const target =
    choices?.querySelector<HTMLButtonElement>('[aria-pressed="true"]') ??
    choices?.querySelector<HTMLButtonElement>('button');
  target?.focus();
  return Boolean(target);
}
