/** How figures are written in the report. */

const MiB = 1024 * 1024;

export function mb(bytes: number): string {
  if (bytes >= 1024 * MiB) return `${(bytes / (1024 * MiB)).toFixed(2)} GiB`;
  if (bytes >= 10 * MiB) return `${(bytes / MiB).toFixed(0)} MiB`;
  return `${(bytes / MiB).toFixed(1)} MiB`;
}

export function mbps(bytes: number, ms: number): string {
  return `${(bytes / MiB / (ms / 1000)).toFixed(0)} MiB/s`;
}

export function rate(bytes: number, ms: number): number {
  return bytes / MiB / (ms / 1000);
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return '—';
  if (value >= 10_000) return `${(value / 1000).toFixed(1)} s`;
  if (value >= 100) return `${value.toFixed(0)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(2)} ms`;
}

export function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function ratio(value: number): string {
  if (!Number.isFinite(value)) return '—';
  return value >= 10 ? `${value.toFixed(0)}×` : `${value.toFixed(2)}×`;
}

export function percent(value: number): string {
  return `${(value * 100).toFixed(1)} %`;
}
