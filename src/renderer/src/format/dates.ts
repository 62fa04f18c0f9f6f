import type { Language } from '../state/ui-store';

const cache = new Map<string, Intl.DateTimeFormat>();

function formatter(language: Language, kind: 'date' | 'dateTime' | 'time') {
  const key = `${language}:${kind}`;
  let f = cache.get(key);
  if (!f) {
    const options: Intl.DateTimeFormatOptions =
      kind === 'date'
        ? { dateStyle: 'medium' }
        : kind === 'time'
          ? { timeStyle: 'medium' }
          : { dateStyle: 'medium', timeStyle: 'short' };
    f = new Intl.DateTimeFormat(language, options);
    cache.set(key, f);
  }
  return f;
}

function toDate(value: string | number | Date): Date | null {
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** "Jun 1, 2025, 2:05 PM" / "2025/06/01 14:05", in the UI's language and the local time zone. */
export function formatDateTime(value: string | number | Date, language: Language = 'en'): string {
  const d = toDate(value);
  return d ? formatter(language, 'dateTime').format(d) : '—';
}

/** "Jun 1, 2025" / "2025/06/01". */
export function formatDate(value: string | number | Date, language: Language = 'en'): string {
  const d = toDate(value);
  return d ? formatter(language, 'date').format(d) : '—';
}

/** A yyyy-mm-dd day (a date input's value) as a local calendar day, or null. */
export function parseDay(day: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return d.getMonth() === Number(m[2]) - 1 ? d : null;
}

/**
 * The instants that bound a local day, as ISO text for the store (which compares ISO
 * strings in UTC): a person in Tokyo who picks 1 June means 1 June in Tokyo.
 */
export function dayStartIso(day: string): string | null {
  return parseDay(day)?.toISOString() ?? null;
}

export function dayEndIso(day: string): string | null {
  const d = parseDay(day);
  if (!d) return null;
  d.setDate(d.getDate() + 1);
  return new Date(d.getTime() - 1).toISOString();
}

/** A local calendar day as yyyy-mm-dd (a date input's value). */
export function dayOf(date: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The yyyy-mm-dd day `days` after (or before, when negative) `day`. */
export function addDays(day: string, days: number): string | null {
  const d = parseDay(day);
  if (!d) return null;
  d.setDate(d.getDate() + days);
  return dayOf(d);
}
