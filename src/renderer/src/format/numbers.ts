import type { Language } from '../state/ui-store';

/**
 * Numbers as the UI's language writes them (never the OS's): the formatters are made once
 * per language and kind, since Intl constructors are slow to build for every table cell.
 */
const cache = new Map<string, Intl.NumberFormat>();

function formatter(language: Language, kind: string, options: Intl.NumberFormatOptions) {
  const key = `${language}:${kind}`;
  let f = cache.get(key);
  if (!f) {
    f = new Intl.NumberFormat(language, options);
    cache.set(key, f);
  }
  return f;
}

/** 12345 → "12,345". */
export function formatNumber(n: number, language: Language = 'en'): string {
  return formatter(language, 'whole', { maximumFractionDigits: 2 }).format(n);
}

/** 1234 → "1.2K" (ja: "1234", 12345 → "1.2万") for dense cells; the exact figure goes in a title. */
export function compactNumber(n: number, language: Language = 'en'): string {
  if (Math.abs(n) < 1000) return formatNumber(n, language);
  return formatter(language, 'compact', {
    notation: 'compact',
    maximumFractionDigits: 1,
  }).format(n);
}

/** A whole figure (tokens, counts): "12,345". */
export function wholeNumber(n: number, language: Language = 'en'): string {
  return formatNumber(Math.round(n), language);
}

/** 0.8 → "80%". */
export function formatPercent(ratio: number, language: Language = 'en'): string {
  return formatter(language, 'percent', { style: 'percent', maximumFractionDigits: 1 }).format(
    ratio,
  );
}

const BYTE_UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;

/** 1536 → "1.5 kB" (ja: "1.5 KB"). */
export function formatBytes(bytes: number, language: Language = 'en'): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const name = BYTE_UNITS[unit]!;
  return formatter(language, name, {
    style: 'unit',
    unit: name,
    unitDisplay: unit === 0 ? 'long' : 'short',
    maximumFractionDigits: unit === 0 ? 0 : 1,
  }).format(value);
}
