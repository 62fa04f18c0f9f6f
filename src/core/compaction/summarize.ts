import type { LedgerBudget } from '../facts/fact-ledger-budget';
import { ledgerPart, withFactLedger } from './summary-ledger';
import type { MessageRole } from '../../shared/task-types';
import type { Strategy } from './strategy';
import { triggerTokens } from './strategy';
import { splitSystem } from './format-messages';
import { safeCut } from './tool-pairing';
import { createdEntry, viewTokens } from './view';
import { SUMMARY_PROMPT_EN, SUMMARY_PROMPT_JA } from '../config/summary-prompt';
import { japaneseRatio } from '../tokens/estimate';

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
    const cut = safeCut(rest, rest.length - params.keep_recent_messages);
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
    summary = withFactLedger(summary, toSummarize, later, params.fact_ledger);
    const entry = createdEntry({ role: params.summary_role, content: summary }, 'summary');
    if (estimated) {
      entry.tokens = Math.ceil(viewTokens(toSummarize) * 0.35) + ledgerPart(summary, placeholder);
    }
    return { applied: true, view: [...system, entry, ...rest.slice(cut)], summary, estimated };
  },
};

/** The built-in prompt follows the conversation's language; a prompt the user wrote is used as is. */
export function choosePrompt(configured: string, sample: string): string {
  if (configured !== SUMMARY_PROMPT_JA) return configured;
  return japaneseRatio(sample.slice(0, 20_000)) >= 0.5 ? SUMMARY_PROMPT_JA : SUMMARY_PROMPT_EN;
}
