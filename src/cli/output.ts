/** Where command output goes; tests and the web host can capture it. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}

export const processOutput: Output = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

export function printJson(output: Output, value: unknown): void {
  output.out(JSON.stringify(value, null, 2));
}

/** Plain-text table: columns padded to their widest cell; the last column is clipped to `maxLast`. */
export function formatTable(headers: string[], rows: string[][], maxLast = 60): string {
  const clipped = rows.map((r) =>
    r.map((cell, i) => (i === r.length - 1 ? clip(cell, maxLast) : cell)),
  );
  const widths = headers.map((h, i) =>
    Math.max(h.length, ...clipped.map((r) => (r[i] ?? '').length)),
  );
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...clipped.map(line)].join('\n');
}

export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined) return '-';
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  return String(n);
}

/** 2026-11-21T19:02:03.123Z → 2026-11-21 19:02 (UTC, stated once in the header). */
export function formatTime(iso: string | null | undefined): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : '-';
}

export function indent(text: string, by = '  '): string {
  return text
    .split('\n')
    .map((l) => `${by}${l}`)
    .join('\n');
}
