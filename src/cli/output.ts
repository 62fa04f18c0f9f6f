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

/** 19586 → 19,586: exact figures, where `formatCount`'s 20k would hide a difference. */
export function formatNumber(n: number): string {
  return n.toLocaleString('en-US');
}

/**
 * 0.97 → `97 %`. Only a share of exactly 1 (or 0) shows as 100 % (or 0 %): 99.6 % of facts
 * kept is not all of them, and 0.4 % saved is not nothing.
 */
export function formatShare(share: number | null | undefined): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return '—';
  const pct = Math.round(share * 100);
  if (share > 0 && share < 1) return `${Math.min(99, Math.max(1, pct))} %`;
  return `${pct} %`;
}

/** Terminal width the human output keeps to. */
export const OUTPUT_WIDTH = 100;

/**
 * Lines of at most `width` columns, breaking only between pieces (words, or `paths 14/14,`
 * which must stay whole); a piece longer than a line gets a line of its own.
 */
export function wrapPieces(
  pieces: readonly string[],
  indent: string,
  continuation = indent,
  width = OUTPUT_WIDTH,
): string[] {
  const lines: string[] = [];
  let line = '';
  for (const piece of pieces) {
    if (!piece) continue;
    const prefix = lines.length === 0 ? indent : continuation;
    if (line && prefix.length + line.length + 1 + piece.length > width) {
      lines.push(`${prefix}${line}`);
      line = piece;
    } else {
      line = line ? `${line} ${piece}` : piece;
    }
  }
  if (line) lines.push(`${lines.length === 0 ? indent : continuation}${line}`);
  return lines;
}
