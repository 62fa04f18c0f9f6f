import { wholeNumber } from '../../format/numbers';

/** A duration as a person reads it: 45s, 12m 3s, 2h 5m. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

export function tokens(n: number | null | undefined): string {
  return typeof n === 'number' ? wholeNumber(Math.round(n)) : '—';
}

/** Tool-call arguments are JSON text: shown compact on one line. */
export function argsText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
