import { LEDGER_DEFAULTS, type LedgerBudget } from '../facts/fact-ledger-budget';
import { ledgerPart, withFactLedger } from './summary-ledger';
import type { CurrentMessage } from '../../shared/task-types';
import type { ContextStats, Strategy, StrategyContext, StrategyResult } from './strategy';
import { triggerTokens } from './strategy';
import type { ViewEntry } from './view';
import { createdEntry, inlineEntry, viewTokens } from './view';
import { formatEntries, formatEntry, splitSystem } from './format-messages';
import { extractiveDigest } from './extractive-digest';
import { statsOfContext } from './truncate';
import { estimatedSummaryTokens } from './condense';

/**
 * seed 002 §2: when usage reaches a share of the window, the model is interrupted and asked
 * for a `<retain>` list (details to keep verbatim) and a `<summary>`; the context becomes
 * system + retain + summary + the last turns. The interruption and the reply never enter
 * the context (§2.6.5).
 */

export interface RetainSummaryParams {
  threshold_ratio: number;
  /** A different model for the summary call (§2.6.2); null: the task's model. */
  model: string | null;
  summary_prompt: string | null;
  summary_directives: string[];
  retain_prompt: string | null;
  retain_directives: string[];
  retain_last_turns: number;
  /** How large the fact ledger appended to the summary may grow (config `compaction.fact_ledger`). */
  fact_ledger: LedgerBudget;
}

export const RETAIN_SUMMARY_DEFAULTS: RetainSummaryParams = {
  threshold_ratio: 0.8,
  model: null,
  summary_prompt: null,
  summary_directives: [],
  retain_prompt: null,
  retain_directives: [],
  retain_last_turns: 1,
  fact_ledger: LEDGER_DEFAULTS,
};

/** In the spirit of the Python version: a continuation summary inside <summary> tags. */
export const DEFAULT_SUMMARY_PROMPT = `Stop working on the task for a moment: the conversation above is about to be replaced by a summary because the context window is nearly full. Write a continuation summary that lets you (or another instance of you) pick the task up from here without the earlier messages:
1. The task: what was asked, with every constraint and preference that was stated.
2. Progress: what has been done and what it produced (files created or changed, commands run and their outcomes).
3. Decisions: what was decided and why; approaches that were tried and did not work.
4. Errors: problems met and whether they are solved.
5. Next steps: what remains to be done, in order, and what you were about to do.
Be concise and factual; keep exact file paths, names, numbers and error messages. Do not call tools. Write the summary inside <summary></summary> tags.`;

/** Used when retain directives are given without a retain prompt, so they are not lost. */
export const DEFAULT_RETAIN_PROMPT =
  'List the concrete details that must survive verbatim: tool output references, identifiers, paths, values and decisions that later steps depend on.';

// ---------------------------------------------------------------- turns

/**
 * Where each turn starts: a turn is an assistant message with the tool results that answer
 * it, plus the user message directly before it. Any other user message belongs to the turn
 * before it (an observation, or a new request still waiting for its answer).
 */
export function turnStarts(entries: readonly ViewEntry[]): number[] {
  const starts: number[] = [];
  for (let i = 0; i < entries.length; i++) {
    if (entries[i]!.message.role !== 'assistant') continue;
    starts.push(i > 0 && entries[i - 1]!.message.role === 'user' ? i - 1 : i);
  }
  return starts;
}

/** Index where the last `turns` turns begin; 0 when there are not more turns than that. */
export function lastTurnsStart(entries: readonly ViewEntry[], turns: number): number {
  if (turns <= 0) return entries.length;
  const starts = turnStarts(entries);
  return starts.length <= turns ? 0 : starts[starts.length - turns]!;
}

// ---------------------------------------------------------------- the request

/**
 * §2.6.1: a summary request that ends with an assistant's tool calls is a call without a
 * result — the provider rejects it. A trailing assistant with tool_calls (unanswered, or
 * answered only by the synthetic results the engine adds for missing ones) becomes a
 * content-only assistant message, or is dropped when it has no content.
 */
export function stripTrailingToolCalls(entries: readonly ViewEntry[]): ViewEntry[] {
  let end = entries.length;
  // Synthetic results (never stored) stand in for results that do not exist yet.
  while (
    end > 0 &&
    entries[end - 1]!.message.role === 'tool' &&
    entries[end - 1]!.record === undefined
  )
    end--;
  const last = entries[end - 1];
  if (!last || last.message.role !== 'assistant' || !last.message.tool_calls?.length)
    return [...entries];
  const kept = entries.slice(0, end - 1);
  const content = last.message.content?.trim();
  if (content) kept.push(inlineEntry({ role: 'assistant', content: last.message.content }));
  return kept;
}

function bullets(items: readonly string[]): string {
  return items
    .map((d) => d.trim())
    .filter((d) => d.length > 0)
    .map((d) => `- ${d}`)
    .join('\n');
}

/** The interruption: summary prompt + directives (§2.6.3), then the retain instruction (§2.6.4). */
export function interruptionText(params: RetainSummaryParams): string {
  const parts: string[] = [];
  const summaryDirectives = bullets(params.summary_directives);
  parts.push(
    (params.summary_prompt ?? DEFAULT_SUMMARY_PROMPT).trim() +
      (summaryDirectives ? `\nAlso:\n${summaryDirectives}` : ''),
  );
  const retainDirectives = bullets(params.retain_directives);
  const retainPrompt = params.retain_prompt ?? (retainDirectives ? DEFAULT_RETAIN_PROMPT : null);
  if (retainPrompt) {
    parts.push(
      `${retainPrompt.trim()}${retainDirectives ? `\n${retainDirectives}` : ''}\nWrite this list inside <retain></retain> tags, before the <summary> block.`,
    );
  }
  return parts.join('\n\n');
}

export interface SummaryRequest {
  /** The messages as a chat request would carry them (§2.6 steps 1–2): the interruption last. */
  messages: CurrentMessage[];
  /** The same request as one prompt for `Summarizer.complete`. */
  prompt: string;
}

export function buildSummaryRequest(
  entries: readonly ViewEntry[],
  params: RetainSummaryParams,
): SummaryRequest {
  const interruption = inlineEntry({ role: 'user', content: interruptionText(params) });
  const all = [...entries, interruption];
  return {
    messages: all.map((e) => e.message),
    prompt: `${formatEntries(entries)}\n\n${formatEntry(interruption)}`,
  };
}

/** Pulls `<retain>` and `<summary>` out of a reply; a reply without tags is all summary. */
export function extractRetainSummary(reply: string): { retain: string; summary: string } {
  const retain = tagged(reply, 'retain');
  const summary = tagged(reply, 'summary');
  if (summary !== undefined) return { retain: retain ?? '', summary };
  // No summary tag: whatever is not the retain block is the summary.
  const rest = reply.replace(/<retain>[\s\S]*?(?:<\/retain>|$)/i, '').trim();
  return { retain: retain ?? '', summary: rest };
}

function tagged(text: string, tag: string): string | undefined {
  const open = new RegExp(`<${tag}\\s*>`, 'i').exec(text);
  if (!open) return undefined;
  const from = open.index + open[0].length;
  const close = new RegExp(`</${tag}\\s*>`, 'i').exec(text.slice(from));
  // An unclosed tag (a reply cut off by max tokens) runs to the end.
  return (close ? text.slice(from, from + close.index) : text.slice(from)).trim();
}

// ---------------------------------------------------------------- the strategy

export const retainSummary: Strategy<RetainSummaryParams> = {
  name: 'retain-summary',
  needed(stats: ContextStats, params: RetainSummaryParams): boolean {
    return triggerTokens(stats) >= stats.contextWindow * params.threshold_ratio;
  },
  async run(ctx, params): Promise<StrategyResult> {
    if (ctx.reason === 'auto') {
      const stats = statsOfContext(ctx);
      if (!retainSummary.needed(stats, params)) {
        return {
          applied: false,
          reason: `usage (${triggerTokens(stats)} tokens) is below ${params.threshold_ratio} of the ${stats.contextWindow}-token window`,
        };
      }
    }
    const { system, rest } = splitSystem(ctx.view);
    const keepFrom = lastTurnsStart(rest, params.retain_last_turns);
    const older = rest.slice(0, keepFrom);
    const toSummarize = stripTrailingToolCalls(older);
    if (toSummarize.length === 0) {
      return {
        applied: false,
        reason: `nothing before the last ${params.retain_last_turns} turn${params.retain_last_turns === 1 ? '' : 's'} to summarize`,
      };
    }
    const outcome = await summarizeOlder(ctx, toSummarize, params);
    if ('declined' in outcome) return { applied: false, reason: outcome.declined };
    const created: ViewEntry[] = [];
    if (outcome.retain)
      created.push(createdEntry({ role: 'user', content: outcome.retain }, 'summary'));
    // Facts the <retain> list already states are not repeated in the ledger.
    const summaryText = withFactLedger(
      outcome.summary,
      toSummarize,
      rest.slice(keepFrom),
      params.fact_ledger,
      outcome.retain,
    );
    const summaryEntry = createdEntry({ role: 'user', content: summaryText }, 'summary');
    if (outcome.estimated) {
      summaryEntry.tokens =
        estimatedSummaryTokens(viewTokens(toSummarize), ctx.maxOutputTokens) +
        ledgerPart(summaryText, outcome.summary);
    }
    created.push(summaryEntry);
    return {
      applied: true,
      view: [...system, ...created, ...rest.slice(keepFrom)],
      summary: outcome.retain ? `${summaryText}\n\nRetained:\n${outcome.retain}` : summaryText,
      ...(outcome.estimated && { estimated: true }),
    };
  },
};

type Outcome = { retain: string; summary: string; estimated?: boolean } | { declined: string };

async function summarizeOlder(
  ctx: StrategyContext,
  entries: readonly ViewEntry[],
  params: RetainSummaryParams,
): Promise<Outcome> {
  const complete = ctx.summarizer.complete?.bind(ctx.summarizer);
  if (!complete) {
    // Without a model there is no one to ask for <retain>: the digest is the summary.
    return {
      retain: '',
      summary: `Summary of earlier work (extractive digest, no LLM: retain-summary needs a model, none is configured):\n\n${extractiveDigest(entries)}`,
    };
  }
  if (ctx.dryRun) {
    const wantsRetain = params.retain_prompt !== null || bullets(params.retain_directives) !== '';
    return {
      retain: wantsRetain ? '(the model would list the details to retain here)' : '',
      summary: `(the model would summarize ${entries.length} messages, ~${viewTokens(entries)} tokens, here)`,
      estimated: true,
    };
  }
  const request = buildSummaryRequest(entries, params);
  let reply: string;
  try {
    reply = await complete(request.prompt, {
      model: params.model,
      ...(ctx.signal && { signal: ctx.signal }),
    });
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    return {
      declined: `the summary call failed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  const { retain, summary } = extractRetainSummary(reply);
  if (!summary) {
    return {
      declined: retain
        ? 'the model returned a <retain> list but no summary'
        : 'the model returned an empty summary',
    };
  }
  return { retain, summary };
}
