const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
const whole = new Intl.NumberFormat('en');

/** 1234 → "1.2K" for dense table cells; the exact figure goes in the title attribute. */
export function compactNumber(n: number): string {
  return n < 1000 ? String(n) : compact.format(n);
}

export function wholeNumber(n: number): string {
  return whole.format(n);
}
