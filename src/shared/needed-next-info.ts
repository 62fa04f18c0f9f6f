/**
 * "Needed next" (future-reference recall, FRR) as every place that shows compaction quality
 * reports it: the diff page, a dry run at a past point, the API. The facts that count are the
 * paths, names, numbers with units, URLs and references the agent typed after the point that
 * the compacted span held; FRR is the share of them the new context states verbatim.
 */
export interface NeededNextInfo {
  /** Distinct facts the agent typed after the point that the compacted span held. */
  needed: number;
  kept: number;
  /** kept / needed; null when the agent needed nothing of the span (or did nothing after it). */
  frr: number | null;
  /** Needed facts the new context dropped, in the order the agent typed them (capped). */
  lost: { kind: string; text: string }[];
  /** Seed-estimate tokens of the context at the point and of the new context measured. */
  tokensBefore: number;
  tokensAfter: number;
  /**
   * Files read again and commands run again after the point whose output was in the span:
   * the price the agent paid for what the new context dropped (cost at the task's model's
   * input price; null when the model's price is unknown).
   */
  reReads: { count: number; tokens: number; costUsd: number | null; examples: string[] };
  /**
   * An agent's own compaction: the workbench's configured pipeline run offline on the same
   * prefix (extractive digest, nothing written), scored on the same facts.
   */
  pipeline?: {
    label: string;
    applied: boolean;
    kept: number;
    frr: number | null;
    tokensAfter: number;
  };
  /** The agent whose own compaction this is (its id: `claude-code`, `codex`, ...). */
  agent?: string;
  /** Why it is measured as it is (no summary at this point, nothing after it, ...). */
  notes: string[];
}

/** Lost facts sent with the figures; the rest are counted. */
export const NEEDED_LOST_LISTED = 30;
