import type { ContextStats, Strategy, StrategyContext, StrategyResult } from './strategy';
import { triggerTokens } from './strategy';
import type { ViewEntry } from './view';
import { createdEntry, viewTokens } from './view';
import { splitSystem } from './format-messages';

/**
 * seed 004 sliding-window truncation, non-destructive: the system messages and the first
 * message (the task) stay, an even share of the messages after it leaves the context and a
 * marker takes their place. Nothing is deleted — the hidden messages stay in messages.jsonl
 * and come back when the compaction is undone.
 */

export interface TruncateParams {
  /** Share of the messages after the first to hide (seed 004 / Roo: 0.5). */
  fraction: number;
}

export const TRUNCATE_DEFAULTS: TruncateParams = { fraction: 0.5 };

/** seed 004 TOKEN_BUFFER_PERCENTAGE: the last 10 % of the window is never planned for. */
export const TOKEN_BUFFER_RATIO = 0.1;

/**
 * The figures a trigger sees, from a strategy's context. A strategy asked to run with
 * reason 'auto' declines when its own trigger says no, so a pipeline step runs only when
 * needed. (This belongs next to ContextStats in strategy.ts.)
 */
export function statsOfContext(ctx: StrategyContext): ContextStats {
  return {
    currentTokens: viewTokens(ctx.view),
    lastUsageTokens: ctx.lastUsageTokens,
    messageCount: ctx.view.length,
    contextWindow: ctx.contextWindow,
    maxOutputTokens: ctx.maxOutputTokens,
  };
}

/** Tokens a request may use: the window less the buffer and the room for the reply. */
export function allowedTokens(stats: ContextStats, bufferRatio = TOKEN_BUFFER_RATIO): number {
  return stats.contextWindow * (1 - bufferRatio) - stats.maxOutputTokens;
}

export function truncationMarkerText(hidden: number): string {
  return `[${hidden} earlier message${hidden === 1 ? '' : 's'} hidden to fit the context window; they are kept and can be restored]`;
}

/**
 * Plans the truncation of a view. n = non-system messages; the first is kept and
 * floor((n − 1) × fraction), rounded down to even, follow it out of the context.
 *
 * Why even: a conversation alternates user/assistant, so hiding pairs keeps the message
 * after the marker the same role as before. Tool pairs come first, though: the hidden range
 * never ends between a call and its results. The end moves to the nearest boundary that is
 * both pair-safe and even (the smaller cut first); only when no even range is pair-safe
 * (e.g. one assistant message with three results) does the count become odd.
 */
export function truncateView(view: readonly ViewEntry[], fraction: number): StrategyResult {
  const share = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
  const { system, rest } = splitSystem(view);
  const n = rest.length;
  // The first message stays with its own results, if it is a call (unusual, but possible).
  let start = 1;
  while (start < n && rest[start]!.message.role === 'tool') start++;
  let target = Math.floor((n - 1) * share);
  target -= target % 2;
  if (n < 3 || target <= 0) {
    return {
      applied: false,
      reason: `only ${n} message${n === 1 ? '' : 's'} after the system prompt: nothing to hide with fraction ${share}`,
    };
  }
  const end = pickEnd(rest, start, start + target);
  if (end === undefined) {
    return { applied: false, reason: 'no cut point that keeps every tool call with its result' };
  }
  const hiddenEntries = rest.slice(start, end);
  const hidden = hiddenEntries.length;
  const tokens = viewTokens(hiddenEntries);
  const marker = createdEntry(
    { role: 'user', content: truncationMarkerText(hidden) },
    'truncation-marker',
  );
  return {
    applied: true,
    view: [...system, ...rest.slice(0, start), marker, ...rest.slice(end)],
    summary: `Truncated: ${hidden} message${hidden === 1 ? '' : 's'} (~${tokens} tokens) after the first message hidden behind a marker.`,
  };
}

/** A cut is pair-safe when the kept part does not start with a tool result. */
function pairSafe(rest: readonly ViewEntry[], end: number): boolean {
  return end >= rest.length || rest[end]!.message.role !== 'tool';
}

function pickEnd(rest: readonly ViewEntry[], start: number, target: number): number | undefined {
  const ok = (end: number): boolean => end > start && end <= rest.length && pairSafe(rest, end);
  const span = rest.length;
  for (let d = 0; d <= span; d++) {
    for (const end of [target - d, target + d]) {
      if (ok(end) && (end - start) % 2 === 0) return end;
    }
  }
  // Pairs win over parity (see truncateView).
  for (let d = 0; d <= span; d++) {
    for (const end of [target - d, target + d]) if (ok(end)) return end;
  }
  return undefined;
}

export const truncate: Strategy<TruncateParams> = {
  name: 'truncate',
  /** seed 004: truncation is for when the request would not fit the buffered window. */
  needed(stats: ContextStats): boolean {
    return triggerTokens(stats) > allowedTokens(stats);
  },
  run(ctx, params): Promise<StrategyResult> {
    if (ctx.reason === 'auto') {
      const stats = statsOfContext(ctx);
      if (!truncate.needed(stats, params)) {
        return Promise.resolve({
          applied: false,
          reason: `the context (${triggerTokens(stats)} tokens) fits the window less the buffer and the reply (${Math.floor(allowedTokens(stats))} tokens)`,
        });
      }
    }
    return Promise.resolve(truncateView(ctx.view, params.fraction));
  },
};
