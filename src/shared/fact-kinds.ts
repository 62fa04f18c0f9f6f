/**
 * The kinds of fact the fact extractor finds (src/core/facts): evidence an agent needs to
 * carry on after compaction. Shared so the UI can label and order them.
 */
export const FACT_KINDS = [
  'instruction',
  'path',
  'command',
  'error',
  'number',
  'identifier',
  'url',
] as const;
export type FactKind = (typeof FACT_KINDS)[number];

/** The kinds the quality goal counts (instructions and URLs are reported, not scored). */
export const SCORED_KINDS: readonly FactKind[] = [
  'path',
  'command',
  'error',
  'number',
  'identifier',
];

export const FACT_KIND_LABELS: Record<FactKind, string> = {
  instruction: 'instructions',
  path: 'paths',
  command: 'commands',
  error: 'error lines',
  number: 'numbers',
  identifier: 'identifiers',
  url: 'URLs',
};

/** How many facts of one kind a span had, and how many survived compaction. */
export interface KindScore {
  total: number;
  kept: number;
}

/** Kept share, 1 when there was nothing to keep (nothing was lost). */
export function keptShare(score: KindScore): number {
  return score.total === 0 ? 1 : score.kept / score.total;
}

export interface LostFact {
  kind: FactKind;
  text: string;
  /** `exit 1`, the command an error line came from, … */
  detail?: string;
}

/**
 * How good a compaction is, measured on the span it replaced: the tokens it saved there and
 * the span's facts still found anywhere in the new context.
 */
export interface CompactionQualityInfo {
  /** Messages that left the context or are shown with other content. */
  spanMessages: number;
  /** Seed-estimate tokens of those messages, and of what took their place. */
  spanTokens: number;
  replacementTokens: number;
  /** 1 − replacement / span. */
  savedShare: number;
  facts: {
    byKind: Record<FactKind, KindScore>;
    /** Paths, commands, error lines, numbers and identifiers together. */
    salient: KindScore;
    /** The most important facts that did not survive, most important first (capped). */
    lost?: LostFact[];
    lostCount: number;
  };
}
