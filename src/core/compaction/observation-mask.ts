import { estimateTokens } from '../tokens/estimate';
import type { ContextStats, Strategy, StrategyContext, StrategyResult } from './strategy';
import { triggerTokens } from './strategy';
import { fullOutputRef, isTrimmed, trimmedPlaceholder } from './tool-output-trim';
import { withContent, type ViewEntry } from './view';

/**
 * Observation masking: tool outputs older than the newest `keep_turns` turns are replaced by
 * the placeholder naming the ref their full text is saved under (read back with
 * `tool_output_cache`); every call, with its arguments, and everything the agent and the
 * user wrote stay verbatim. Published SWE-bench runs found it matched LLM summaries' solve
 * rate at about half the cost; it needs no model. A turn is one assistant message.
 */
export interface ObservationMaskParams {
  /** Outputs of the newest this-many turns stay whole. */
  keep_turns: number;
  /** Automatic runs start at this share of the context window (config `compaction.thresholdRatio`). */
  threshold_ratio: number;
}

export const OBSERVATION_MASK_DEFAULTS: ObservationMaskParams = {
  keep_turns: 10,
  threshold_ratio: 0.8,
};

export const observationMask: Strategy<ObservationMaskParams> = {
  name: 'observation-mask',

  needed(stats: ContextStats, params: ObservationMaskParams): boolean {
    return triggerTokens(stats) > stats.contextWindow * params.threshold_ratio;
  },

  // async so that a failure (an output that cannot be saved) rejects instead of throwing
  async run(ctx: StrategyContext, params: ObservationMaskParams): Promise<StrategyResult> {
    return mask(ctx, params);
  },
};

/** Index of the first entry of the newest `turns` turns (everything from it on stays). */
function keptFrom(view: readonly ViewEntry[], turns: number): number {
  let seen = 0;
  for (let i = view.length - 1; i >= 0; i--) {
    if (view[i]!.message.role !== 'assistant') continue;
    seen++;
    if (seen >= turns) return i;
  }
  return 0;
}

function mask(ctx: StrategyContext, params: ObservationMaskParams): StrategyResult {
  const from = keptFrom(ctx.view, Math.max(0, params.keep_turns));
  const placeholderTokens = estimateTokens(trimmedPlaceholder('trim_000000000000'));
  const view: ViewEntry[] = [...ctx.view];
  let masked = 0;
  let before = 0;
  let after = 0;
  for (let i = 0; i < from; i++) {
    const entry = ctx.view[i]!;
    const content = entry.message.content ?? '';
    if (entry.message.role !== 'tool' || isTrimmed(content)) continue;
    // An output no bigger than its placeholder stays: replacing it would save nothing.
    if (entry.tokens <= placeholderTokens) continue;
    view[i] = withContent(entry, trimmedPlaceholder(fullOutputRef(entry, ctx)));
    masked++;
    before += entry.tokens;
    after += view[i]!.tokens;
  }
  if (masked === 0) {
    return {
      applied: false,
      reason: `No tool output older than the newest ${params.keep_turns} turns is left to mask.`,
    };
  }
  const summary =
    `Masked ${masked} tool output${masked === 1 ? '' : 's'} older than the newest ` +
    `${params.keep_turns} turns (${before.toLocaleString('en-US')} → ${after.toLocaleString('en-US')} tokens); ` +
    'every call and message kept verbatim; full outputs behind their refs (tool_output_cache).';
  return { applied: true, view, summary };
}
