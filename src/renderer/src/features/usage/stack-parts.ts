import type { UsageRow } from '../../../../shared/api/usage-api';

/** The stacked chart's data: one series per model or agent (the rest as one), by row. */
export interface Stack {
  /** The rows' keys (days, weeks, months), in order. */
  keys: string[];
  /** Dollars of each part by row, the most expensive part first. */
  parts: { key: string; usd: number[]; total: number }[];
  /** Dollars of all parts by row. */
  totals: number[];
}

/** The key of the part that gathers the cheaper models or agents. */
export const OTHER = '\u0000other';

/**
 * The rows' costs split by their parts, the `max` most expensive parts kept apart and the
 * rest summed as OTHER; parts with no dollars (usage without a price) are left out: the
 * chart shows money, and the page counts unpriced tokens apart.
 */
export function stackParts(rows: readonly UsageRow[], max = 6): Stack {
  const sums = new Map<string, number>();
  for (const row of rows)
    for (const p of row.parts ?? []) if (p.usd > 0) sums.set(p.key, (sums.get(p.key) ?? 0) + p.usd);
  const ranked = [...sums.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const kept = ranked.length > max ? ranked.slice(0, max - 1) : ranked;
  const keptKeys = new Set(kept.map(([k]) => k));
  const order = [...kept.map(([k]) => k), ...(ranked.length > max ? [OTHER] : [])];
  const index = new Map(order.map((k, i) => [k, i]));
  const parts = order.map((key) => ({ key, usd: rows.map(() => 0), total: 0 }));
  rows.forEach((row, r) => {
    for (const p of row.parts ?? []) {
      if (p.usd <= 0) continue;
      const part = parts[index.get(keptKeys.has(p.key) ? p.key : OTHER)!]!;
      part.usd[r]! += p.usd;
      part.total += p.usd;
    }
  });
  return {
    keys: rows.map((r) => r.key),
    parts,
    totals: rows.map((_, r) => parts.reduce((s, p) => s + p.usd[r]!, 0)),
  };
}

/**
 * The stacked bars as uPlot draws them, the most expensive part at the bottom: part i's bar
 * runs from zero to the sum of parts 0..i, and the bars are drawn tallest first so that each
 * lower part covers the base of the ones above. Returned in drawing order.
 */
export function stackedSeries(stack: Stack): { part: number; values: number[] }[] {
  const cumulative: number[][] = [];
  let running = stack.keys.map(() => 0);
  for (const part of stack.parts) {
    running = running.map((v, r) => v + part.usd[r]!);
    cumulative.push(running);
  }
  return cumulative.map((values, part) => ({ part, values })).reverse();
}
