import type { LedgerBudget } from '../facts/fact-ledger-budget';
import { ledgerPart, withFactLedger } from './summary-ledger';
import type { MessageRole } from '../../shared/task-types';
import type { Strategy, StrategyContext } from './strategy';
import { triggerTokens } from './strategy';
import { splitSystem } from './format-messages';
import { safeCut } from './tool-pairing';
import { createdEntry, viewTokens, type ViewEntry } from './view';
import { SUMMARY_PROMPT_EN, SUMMARY_PROMPT_JA } from '../config/summary-prompt';
import { estimateTokens, japaneseRatio } from '../tokens/estimate';

export interface SummarizeParams {
  /** seed 000 keep_recent_messages (default 5). */
  keep_recent_messages: number;
  /** seed 001 min_to_compress: skip when fewer messages would be summarized. */
  min_to_compress: number;
  /** The prompt with `{messages}`; the built-in Japanese one switches to English for non-Japanese contexts. */
  summary_prompt: string;
  /** seed 000 compression_threshold: share of the context window that triggers. */
  compression_threshold: number;
  /** seed 001 token_threshold: absolute tokens that trigger (null: ratio only). */
  token_threshold: number | null;
  /** seed 000 writes the summary as an assistant message, seed 001 as system; assistant by default. */
  summary_role: MessageRole;
  /** How large the fact ledger appended to the summary may grow (config `compaction.fact_ledger`). */
  fact_ledger: LedgerBudget;
}

/**
 * seeds 000 §7 / 001 §7.3: keep the newest messages, summarize the rest with the
 * configured prompt, put the summary first (after the system prompt).
 */
export const summarize: Strategy<SummarizeParams> = {
  name: 'summarize',

  needed(stats, params) {
    const tokens = triggerTokens(stats);
    if (params.token_threshold !== null && tokens > params.token_threshold) return true;
    return tokens > stats.contextWindow * params.compression_threshold;
  },

  async run(ctx, params) {
    const { system, rest } = splitSystem(ctx.view);
    const cap = contextCap(ctx, params.fact_ledger);
    const configured = safeCut(rest, rest.length - params.keep_recent_messages);
    // Too short as configured stays too short: the cap only ever keeps fewer messages.
    const cut =
      configured < params.min_to_compress || configured === 0
        ? configured
        : keptCut(rest, params.keep_recent_messages, cap && cap - viewTokens(system));
    const toSummarize = rest.slice(0, cut);
    if (toSummarize.length === 0 || toSummarize.length < params.min_to_compress) {
      return {
        applied: false,
        reason: `only ${toSummarize.length} message${toSummarize.length === 1 ? '' : 's'} would be summarized (min_to_compress is ${params.min_to_compress}, the newest ${params.keep_recent_messages} are kept)`,
      };
    }
    const prompt = choosePrompt(
      params.summary_prompt,
      toSummarize.map((e) => e.message.content ?? '').join('\n'),
    );
    let summary: string;
    let estimated = false;
    const later = rest.slice(cut);
    if (ctx.dryRun && ctx.summarizer.kind === 'llm') {
      const tokens = viewTokens(toSummarize);
      summary = `(the model will summarize these ${toSummarize.length} messages, ~${tokens} tokens, here; the prompt asks for 30–40 % of the original length)`;
      estimated = true;
    } else {
      summary = (
        await ctx.summarizer.summarize(toSummarize, prompt, {
          ...(ctx.signal && { signal: ctx.signal }),
        })
      ).trim();
      if (!summary) return { applied: false, reason: 'the summarizer returned an empty summary' };
    }
    const placeholder = summary;
    const ledger =
      cap === undefined
        ? params.fact_ledger
        : ledgerWithin(
            params.fact_ledger,
            cap - viewTokens([...system, ...later]) - estimateTokens(summary),
          );
    summary = withFactLedger(summary, toSummarize, later, ledger);
    const entry = createdEntry({ role: params.summary_role, content: summary }, 'summary');
    if (estimated) {
      entry.tokens = Math.ceil(viewTokens(toSummarize) * 0.35) + ledgerPart(summary, placeholder);
    }
    return { applied: true, view: [...system, entry, ...rest.slice(cut)], summary, estimated };
  },
};

/** Tokens the new context may take (`context_share` of the context the run began with). */
function contextCap(ctx: StrategyContext, budget: LedgerBudget): number | undefined {
  const share = budget.context_share ?? 0;
  if (share <= 0) return undefined;
  return Math.floor(share * (ctx.tokensAtStart ?? viewTokens(ctx.view)));
}

/**
 * Where the newest messages kept verbatim begin: `keep` of them, or fewer when they would
 * take more than half of what the cap leaves beside the system prompt (the other half is the
 * summary's, whose ledger keeps their facts ranked by what the agent typed).
 */
function keptCut(rest: readonly ViewEntry[], keep: number, room: number | undefined): number {
  let cut = safeCut(rest, rest.length - keep);
  if (room === undefined) return cut;
  for (let k = keep - 1; k >= 0 && viewTokens(rest.slice(cut)) > room / 2; k--)
    cut = safeCut(rest, rest.length - k);
  return cut;
}

/** The ledger's budget with at most `room` tokens (never below what says anything at all). */
function ledgerWithin(budget: LedgerBudget, room: number): LedgerBudget {
  return { ...budget, max_tokens: Math.max(0, Math.min(budget.max_tokens, Math.floor(room))) };
}

/** The built-in prompt follows the conversation's language; a prompt the user wrote is used as is. */
export function choosePrompt(configured: string, sample: string): string {
  if (configured !== SUMMARY_PROMPT_JA) return configured;
  return japaneseRatio(sample.slice(0, 20_000)) >= 0.5 ? SUMMARY_PROMPT_JA : SUMMARY_PROMPT_EN;
}
