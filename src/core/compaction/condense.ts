import { LEDGER_DEFAULTS, type LedgerBudget } from '../facts/fact-ledger-budget';
import { ledgerPart, withFactLedger } from './summary-ledger';
import type { ContextStats, Strategy, StrategyContext, StrategyResult } from './strategy';
import { triggerTokens } from './strategy';
import type { ViewEntry } from './view';
import { createdEntry, viewTokens } from './view';
import { splitSystem } from './format-messages';
import { safeCut } from './tool-pairing';
import { TRUNCATE_DEFAULTS, allowedTokens, statsOfContext, truncateView } from './truncate';

/**
 * seed 004 condensation: the messages between the system prompt and the newest few are
 * summarized into one assistant message. The originals stay in messages.jsonl (the
 * compaction can be undone). When the summary cannot be had — the summarizer fails, says
 * nothing, or says more than it replaces — the context is truncated instead, so a context
 * that must shrink always does.
 */

export interface CondenseParams {
  /** Condense when the context passes this share of the window (seed 004: 5–100 %). */
  threshold_percent: number;
  /** Newest messages kept as they are (seed 004 N_MESSAGES_TO_KEEP). */
  keep_messages: number;
  /** Share of the window held back (seed 004 TOKEN_BUFFER_PERCENTAGE). */
  token_buffer_ratio: number;
  /** A prompt with `{messages}`; null for the default. */
  summary_prompt: string | null;
  /** How large the fact ledger appended to the summary may grow. */
  fact_ledger: LedgerBudget;
}

export const CONDENSE_DEFAULTS: CondenseParams = {
  threshold_percent: 100,
  keep_messages: 3,
  token_buffer_ratio: 0.1,
  summary_prompt: null,
  fact_ledger: LEDGER_DEFAULTS,
};

export const MIN_CONDENSE_THRESHOLD = 5;
export const MAX_CONDENSE_THRESHOLD = 100;

export const DEFAULT_CONDENSE_PROMPT = `You are condensing the conversation below so that the work can continue with less context. The newest messages stay as they are; write what the rest of the conversation established, so that nothing needed to continue is lost.

Write these sections:
1. Task: what the user asked for, in their terms, with every constraint and preference they stated.
2. Progress: what has been done, in order, and what it produced.
3. Files and code: every file read, created or changed, with the parts that matter (names, signatures, short snippets).
4. Commands and results: what was run and how it ended, including errors and how they were dealt with.
5. Decisions: what was chosen and why; what was tried and rejected.
6. Current state and next steps: what was being worked on just now and what remains, quoting the latest request where it helps.

Be specific and factual: exact paths, identifiers, numbers and error messages. Do not invent anything, do not call tools, and answer with the summary only.

Conversation:
{messages}`;

/** seed 004: a threshold outside 5–100 % is clamped into it. */
export function effectiveThresholdPercent(percent: number): number {
  if (!Number.isFinite(percent)) return MAX_CONDENSE_THRESHOLD;
  return Math.min(MAX_CONDENSE_THRESHOLD, Math.max(MIN_CONDENSE_THRESHOLD, percent));
}

function triggerReason(stats: ContextStats, params: CondenseParams): string | undefined {
  const tokens = triggerTokens(stats);
  const percent = effectiveThresholdPercent(params.threshold_percent);
  const threshold = (stats.contextWindow * percent) / 100;
  if (tokens > threshold) return `above ${percent} % of the window`;
  const allowed = allowedTokens(stats, params.token_buffer_ratio);
  if (tokens > allowed) return 'above the window less the buffer and the reply';
  return undefined;
}

export const condense: Strategy<CondenseParams> = {
  name: 'condense',
  needed(stats: ContextStats, params: CondenseParams): boolean {
    return triggerReason(stats, params) !== undefined;
  },
  async run(ctx, params): Promise<StrategyResult> {
    if (ctx.reason === 'auto') {
      const stats = statsOfContext(ctx);
      if (!condense.needed(stats, params)) {
        const percent = effectiveThresholdPercent(params.threshold_percent);
        return {
          applied: false,
          reason: `the context (${triggerTokens(stats)} tokens) is below ${percent} % of the window and fits the buffered window`,
        };
      }
    }
    const { system, rest } = splitSystem(ctx.view);
    const keep = Math.max(0, Math.floor(params.keep_messages));
    const cut = safeCut(rest, rest.length - keep);
    const older = rest.slice(0, cut);
    if (older.length < 2) {
      return {
        applied: false,
        reason: `only ${older.length} message${older.length === 1 ? '' : 's'} before the newest ${rest.length - cut}: not enough to condense`,
      };
    }
    const olderTokens = viewTokens(older);
    if (ctx.dryRun && ctx.summarizer.kind === 'llm') {
      const placeholder = `(the model would summarize ${older.length} messages, ~${olderTokens} tokens, here)`;
      const content = withFactLedger(placeholder, older, rest.slice(cut), params.fact_ledger);
      const summary = createdEntry({ role: 'assistant', content }, 'summary');
      summary.tokens =
        estimatedSummaryTokens(olderTokens, ctx.maxOutputTokens) + ledgerPart(content, placeholder);
      return {
        applied: true,
        view: [...system, summary, ...rest.slice(cut)],
        summary: content,
        estimated: true,
      };
    }
    const outcome = await summarizeOlder(ctx, older, params);
    if ('failed' in outcome) return fallBack(ctx.view, outcome.failed);
    const text = withFactLedger(outcome.text, older, rest.slice(cut), params.fact_ledger);
    const summary = createdEntry({ role: 'assistant', content: text }, 'summary');
    if (summary.tokens >= olderTokens) {
      return fallBack(
        ctx.view,
        `the summary (~${summary.tokens} tokens) is not smaller than the ${older.length} messages it replaces (~${olderTokens} tokens)`,
      );
    }
    return { applied: true, view: [...system, summary, ...rest.slice(cut)], summary: text };
  },
};

/**
 * What a dry run counts for the summary it did not write, so its before/after figures are
 * not wildly optimistic: seed 004 expects condensing to save 70–90 %, and a reply is never
 * longer than the model's output limit.
 */
export function estimatedSummaryTokens(replacedTokens: number, maxOutputTokens: number): number {
  return Math.max(1, Math.min(Math.ceil(replacedTokens * 0.2), maxOutputTokens));
}

async function summarizeOlder(
  ctx: StrategyContext,
  older: readonly ViewEntry[],
  params: CondenseParams,
): Promise<{ text: string } | { failed: string }> {
  try {
    const text = await ctx.summarizer.summarize(
      older,
      params.summary_prompt ?? DEFAULT_CONDENSE_PROMPT,
      {
        ...(ctx.signal && { signal: ctx.signal }),
      },
    );
    const trimmed = text.trim();
    return trimmed ? { text: trimmed } : { failed: 'the summary was empty' };
  } catch (err) {
    // A cancelled run stops; it does not quietly truncate instead.
    if (ctx.signal?.aborted) throw err;
    return { failed: err instanceof Error ? err.message : String(err) };
  }
}

/** seed 004: condensation falls back to truncation, and says so. */
function fallBack(view: readonly ViewEntry[], reason: string): StrategyResult {
  const truncated = truncateView(view, TRUNCATE_DEFAULTS.fraction);
  if (!truncated.applied) {
    return {
      applied: false,
      reason: `condense failed (${reason}); truncation was not possible either: ${truncated.reason}`,
    };
  }
  return {
    ...truncated,
    summary: `condense failed (${reason}); truncated instead. ${truncated.summary}`,
  };
}
