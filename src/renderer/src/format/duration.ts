import type { Language } from '../state/ui-store';

/**
 * Unit names per language, written by hand: CLDR's narrow units are English letters in
 * Japanese too ("3m"), and a Japanese reader expects 3分.
 */
const UNITS: Record<Language, { s: string; m: string; h: string; d: string; sep: string }> = {
  en: { s: 's', m: 'm', h: 'h', d: 'd', sep: ' ' },
  ja: { s: '秒', m: '分', h: '時間', d: '日', sep: '' },
};

/** 95_000 → "1m 35s" (ja: "1分35秒"); the two largest units are enough for a table cell. */
export function formatDuration(ms: number, language: Language = 'en'): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  const u = UNITS[language];
  const pair = (a: number, ua: string, b: number, ub: string): string =>
    b > 0 ? `${a}${ua}${u.sep}${b}${ub}` : `${a}${ua}`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}${u.s}`;
  const m = Math.floor(s / 60);
  if (m < 60) return pair(m, u.m, s % 60, u.s);
  const h = Math.floor(m / 60);
  if (h < 24) return pair(h, u.h, m % 60, u.m);
  return pair(Math.floor(h / 24), u.d, h % 24, u.h);
}
