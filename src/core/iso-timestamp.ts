/**
 * `date.toISOString()` without touching the local time zone. In Node 20's V8,
 * Date.prototype.toISOString goes through the date cache, which asks ICU for the local zone
 * on first use: ICU then loads its time zone data, ~1 MiB of RSS in a process that never
 * shows a local time (a task process, issue #17). The UTC getters do not. Same text as
 * toISOString, and the same RangeError for an invalid date.
 */
export function isoTimestamp(date: Date = new Date()): string {
  const ms = date.getTime();
  if (Number.isNaN(ms)) throw new RangeError('Invalid time value');
  const year = date.getUTCFullYear();
  // Years outside 0–9999 take a sign and six digits, as toISOString writes them.
  const yearText =
    year >= 0 && year <= 9999 ? pad(year, 4) : `${year < 0 ? '-' : '+'}${pad(Math.abs(year), 6)}`;
  return (
    `${yearText}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}` +
    `T${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}` +
    `.${pad(date.getUTCMilliseconds(), 3)}Z`
  );
}

function pad(value: number, digits: number): string {
  return String(value).padStart(digits, '0');
}
