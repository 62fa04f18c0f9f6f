/**
 * Local days of UTC hours. usage_hours keeps UTC hours so any time zone can count days
 * (a zone offset by half an hour places that half hour on the hour's day).
 */

const formatters = new Map<string, Intl.DateTimeFormat>();
const cache = new Map<string, string>();

/** The day ('YYYY-MM-DD') in `timeZone` of the UTC hour 'YYYY-MM-DDTHH'. */
export function localDayOf(hour: string, timeZone: string): string {
  const key = `${timeZone}|${hour}`;
  let day = cache.get(key);
  if (day === undefined) {
    let f = formatters.get(timeZone);
    if (!f) {
      f = new Intl.DateTimeFormat('en-CA', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
      });
      formatters.set(timeZone, f);
    }
    day = f.format(new Date(`${hour}:00:00Z`));
    if (cache.size > 100_000) cache.clear();
    cache.set(key, day);
  }
  return day;
}

/** The Monday ('YYYY-MM-DD') of the ISO week holding `day`. */
export function weekOf(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  const back = (d.getUTCDay() + 6) % 7;
  d.setUTCDate(d.getUTCDate() - back);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}`;
}

/** Whether `timeZone` is one this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone });
    return true;
  } catch {
    return false;
  }
}
