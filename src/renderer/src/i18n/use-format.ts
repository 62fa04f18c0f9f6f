import { useMemo } from 'react';
import { formatDate, formatDateTime } from '../format/dates';
import { formatDuration } from '../format/duration';
import {
  compactNumber,
  formatBytes,
  formatNumber,
  formatPercent,
  wholeNumber,
} from '../format/numbers';
import { relativeTime } from '../format/relative-time';
import { useUiStore, type Language } from '../state/ui-store';

/** Every number, date and duration the UI shows, written in the UI's language (not the OS's). */
export interface Formats {
  language: Language;
  number(n: number): string;
  compact(n: number): string;
  /** A token figure: whole, grouped; "—" when unknown. */
  tokens(n: number | null | undefined): string;
  percent(ratio: number): string;
  bytes(n: number): string;
  duration(ms: number): string;
  dateTime(value: string | number | Date): string;
  date(value: string | number | Date): string;
  relative(iso: string, now?: number): string;
}

export function formatsFor(language: Language): Formats {
  return {
    language,
    number: (n) => formatNumber(n, language),
    compact: (n) => compactNumber(n, language),
    tokens: (n) => (typeof n === 'number' ? wholeNumber(n, language) : '—'),
    percent: (r) => formatPercent(r, language),
    bytes: (n) => formatBytes(n, language),
    duration: (ms) => formatDuration(ms, language),
    dateTime: (v) => formatDateTime(v, language),
    date: (v) => formatDate(v, language),
    relative: (iso, now) => relativeTime(iso, now, language),
  };
}

export function useFormat(): Formats {
  const language = useUiStore((s) => s.language);
  return useMemo(() => formatsFor(language), [language]);
}
