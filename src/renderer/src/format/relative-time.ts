const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

const formats = new Map<string, Intl.RelativeTimeFormat>();
const JUST_NOW: Record<string, string> = { en: 'just now', ja: 'たった今' };

/** "3 minutes ago", "yesterday"; under a minute is "just now" (in the UI's language). */
export function relativeTime(iso: string, now: number = Date.now(), language = 'en'): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '—';
  let format = formats.get(language);
  if (!format) {
    format = new Intl.RelativeTimeFormat(language, { numeric: 'auto' });
    formats.set(language, format);
  }
  const seconds = Math.round((then - now) / 1000);
  for (const [unit, size] of UNITS) {
    // Nearly a whole unit is that unit: 23.6 hours would round to "24 hours ago", one
    // row above another's "yesterday".
    if (Math.abs(seconds) >= size * 0.95)
      return format.format(Math.round(seconds / size) || Math.sign(seconds), unit);
  }
  return JUST_NOW[language] ?? JUST_NOW.en!;
}
