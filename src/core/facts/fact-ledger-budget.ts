/** How large a summary's fact ledger may grow (config.yaml `compaction.fact_ledger`). */
export interface LedgerBudget {
  /** Upper bound of the ledger in seed-estimate tokens. */
  max_tokens: number;
  /** Share of the replaced span's tokens the ledger may take (it must stay a summary). */
  share: number;
}

/**
 * Chosen by measurement on the real transcripts in test/fixtures/real (docs/benchmarks.md,
 * "compaction quality"): 6 % of the span keeps the salient facts of every transcript there
 * above 85 % while the whole summary stays under 10 % of the span.
 */
export const LEDGER_DEFAULTS: LedgerBudget = { max_tokens: 6000, share: 0.06 };
/** Below this a ledger could not say anything useful; a small span gets at least this. */
const MIN_LEDGER_TOKENS = 60;

export function ledgerTokens(spanTokens: number, budget: LedgerBudget): number {
  return Math.max(
    MIN_LEDGER_TOKENS,
    Math.min(budget.max_tokens, Math.floor(spanTokens * budget.share)),
  );
}
