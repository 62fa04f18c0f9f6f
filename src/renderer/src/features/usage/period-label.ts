import { formatDate, parseDay } from '../../format/dates';
import type { Language } from '../../state/ui-store';

const months = new Map<Language, Intl.DateTimeFormat>();

/**
 * A row's key as a reader says it: a day ("Sep 3, 2025"), a week by its Monday, a month
 * ("September 2025" / "2025年9月").
 */
export function periodLabel(
  key: string,
  by: 'day' | 'week' | 'month',
  language: Language,
  weekOf: (day: string) => string,
): string {
  if (by === 'month') {
    const m = /^(\d{4})-(\d{2})$/.exec(key);
    if (!m) return key;
    let f = months.get(language);
    if (!f) {
      f = new Intl.DateTimeFormat(language, { year: 'numeric', month: 'long' });
      months.set(language, f);
    }
    return f.format(new Date(Number(m[1]), Number(m[2]) - 1, 1));
  }
  const day = parseDay(key);
  if (!day) return key;
  const text = formatDate(day, language);
  return by === 'week' ? weekOf(text) : text;
}
