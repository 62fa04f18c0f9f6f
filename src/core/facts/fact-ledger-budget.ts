/** How large a summary's fact ledger may grow (config.yaml `compaction.fact_ledger`). */
export interface LedgerBudget {
  /** Upper bound of the ledger in seed-estimate tokens. */
  max_tokens: number;
  /** Share of the replaced span's tokens the ledger may take (it must stay a summary). */
  share: number;
  /**
   * The whole new context a summary step builds — the system prompt, the summary with its
   * ledger and the newest messages kept verbatim — at most this share of the context before
   * the compaction run: fewer messages are kept verbatim and the ledger shrinks to fit (a
   * model's own summary is as long as the model writes it). 0 or absent: no cap.
   */
  context_share?: number;
}

/**
 * Chosen by measurement (docs/benchmarks.md, "needed next"): on 77 real Claude Code
 * compactions, 7 % of the span lets the default pipeline keep a median 98 % of the facts the
 * agent typed afterwards with a new context of 9 % of the prefix (6 %: 96 % at 8.5 %); with the
 * whole new context capped at 10 % of the prefix, 97 % at 8.7 % and none above 10 %.
 */
export const LEDGER_DEFAULTS: Required<LedgerBudget> = {
  max_tokens: 6000,
  share: 0.07,
  context_share: 0.1,
};
/** Below this a ledger could not say anything useful; a small span gets at least this. */
const MIN_LEDGER_TOKENS = 60;

export function ledgerTokens(spanTokens: number, budget: LedgerBudget): number {
  return Math.max(
    MIN_LEDGER_TOKENS,
    Math.min(budget.max_tokens, Math.floor(spanTokens * budget.share)),
  );
}
