import { dayOf, parseDay } from '../../format/dates';

/**
 * A day as a person types it into a day field, as yyyy-mm-dd; '' for an empty field (no
 * day), null for text that is no day. Takes what either UI language shows or a person
 * writes: 2026-11-20, 2026/11/20, 2026.11.20, 2026年11月20日, 11/20 (this year), and a
 * month by name in English (Nov 20, 2026 · 20 November 2026).
 */
export function parseTypedDay(text: string, now: Date = new Date()): string | null {
  const t = text.trim();
  if (t === '') return '';
  const ymd = /^(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*日?$/.exec(t);
  if (ymd) return checked(Number(ymd[1]), Number(ymd[2]), Number(ymd[3]));
  const md = /^(\d{1,2})\s*[/月]\s*(\d{1,2})\s*日?$/.exec(t);
  if (md) return checked(now.getFullYear(), Number(md[1]), Number(md[2]));
  // A month by name: the engine's date parser reads "Nov 20, 2026" as a local day. Numbers
  // alone are left out, where it would guess (and read "2026-11-20" as UTC).
  if (/[a-z]{3}/i.test(t) && /\d{4}/.test(t)) {
    const parsed = new Date(t);
    if (!Number.isNaN(parsed.getTime())) return dayOf(parsed);
  }
  return null;
}

function checked(year: number, month: number, day: number): string | null {
  const pad = (n: number): string => String(n).padStart(2, '0');
  const text = `${year}-${pad(month)}-${pad(day)}`;
  return parseDay(text) ? text : null;
}
