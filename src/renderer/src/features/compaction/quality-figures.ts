import type { CompactionDiff } from '../../../../shared/api/compaction-api';
import {
  FACT_KINDS,
  SCORED_KINDS,
  type CompactionQualityInfo,
  type FactKind,
  type KindScore,
} from '../../../../shared/fact-kinds';

/**
 * The figures the compaction views show about a compaction's quality (from the API's
 * `CompactionQualityInfo`, measured by core): percentages that never round to a claim the
 * data does not make, the kinds a span had, and where a diff's token figures come from.
 */

/**
 * A share as a percent for reading: whole numbers, but never "100" for less than all nor
 * "0" for more than nothing (99.96 % saved reads 99.9, not 100).
 */
export function percentOf(share: number): number {
  const p = share * 100;
  const whole = Math.round(p);
  if (whole === 100 && p < 100) return Math.floor(p * 10) / 10;
  if (whole === 0 && p > 0) return Math.max(0.1, Math.ceil(p * 10) / 10);
  if (whole === 0 && p < 0) return Math.min(-0.1, Math.floor(p * 10) / 10);
  return whole;
}

/** Kept share of a score as a percent, or null when there was nothing to keep. */
export function keptPercent(score: KindScore): number | null {
  return score.total === 0 ? null : percentOf(score.kept / score.total);
}

export interface KindRow {
  kind: FactKind;
  total: number;
  kept: number;
  lost: number;
  /** Counted in the salient score (instructions and URLs are reported, not scored). */
  scored: boolean;
}

/** The kinds the span had (total > 0), in FACT_KINDS order. */
export function kindRows(quality: CompactionQualityInfo): KindRow[] {
  return FACT_KINDS.flatMap((kind) => {
    const score = quality.facts.byKind[kind];
    if (!score || score.total === 0) return [];
    return [
      {
        kind,
        total: score.total,
        kept: score.kept,
        lost: score.total - score.kept,
        scored: SCORED_KINDS.includes(kind),
      },
    ];
  });
}

/** Every fact of the span, scored or not. */
export function allFacts(quality: CompactionQualityInfo): KindScore {
  return kindRows(quality).reduce(
    (sum, row) => ({ total: sum.total + row.total, kept: sum.kept + row.kept }),
    { total: 0, kept: 0 },
  );
}

/**
 * Where a diff's headline figures come from: the whole context before = the part the
 * compaction did not touch + the span it replaced; after = that same part + what took the
 * span's place. `restBefore` and `restAfter` differ only when something outside the span
 * changed size too (a tool result repaired beside it).
 */
export interface TokenBreakdown {
  before: number;
  after: number;
  spanMessages: number;
  spanTokens: number;
  replacementTokens: number;
  restBefore: number;
  restAfter: number;
  /** Saved on the span, percent. */
  spanSaved: number;
  /** Saved on the whole context, percent. */
  contextSaved: number;
  /** What took the span's place. */
  added: number;
  trimmed: number;
}

export function tokenBreakdown(diff: CompactionDiff): TokenBreakdown {
  const { before, after, quality, record } = diff;
  return {
    before: before.tokens,
    after: after.tokens,
    spanMessages: quality.spanMessages,
    spanTokens: quality.spanTokens,
    replacementTokens: quality.replacementTokens,
    restBefore: Math.max(0, before.tokens - quality.spanTokens),
    restAfter: Math.max(0, after.tokens - quality.replacementTokens),
    spanSaved: percentOf(quality.savedShare),
    contextSaved: before.tokens > 0 ? percentOf(1 - after.tokens / before.tokens) : 0,
    added: record.created_seqs?.length ?? 0,
    trimmed: record.changed_seqs?.length ?? 0,
  };
}

/** Widths (0..1 of the larger context) of the before and after bars' two parts. */
export function breakdownBars(b: TokenBreakdown): {
  before: { rest: number; span: number };
  after: { rest: number; replacement: number };
} {
  const scale = Math.max(b.before, b.after, 1);
  return {
    before: { rest: b.restBefore / scale, span: Math.min(b.spanTokens, b.before) / scale },
    after: {
      rest: b.restAfter / scale,
      replacement: Math.min(b.replacementTokens, b.after) / scale,
    },
  };
}
