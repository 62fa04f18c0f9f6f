import type { AppConfig } from '../config/app-config';
import type { StrategyName } from '../config/strategy-names';
import { CwbError } from '../errors';
import type { PipelineStep } from './compaction-engine';
import type { Strategy } from './strategy';
import { summarize } from './summarize';
import { retainSummary } from './retain-summary';
import { toolOutputTrim } from './tool-output-trim';
import { importanceWindow } from './importance-window';
import { condense } from './condense';
import { truncate } from './truncate';
import { extractive } from './extractive-digest';
import { observationMask } from './observation-mask';

/** Every strategy by its config name (DESIGN.md §5). */
export const STRATEGIES: Record<StrategyName, Strategy<never>> = {
  summarize: summarize as Strategy<never>,
  'retain-summary': retainSummary as Strategy<never>,
  'tool-output-trim': toolOutputTrim as Strategy<never>,
  'importance-window': importanceWindow as Strategy<never>,
  condense: condense as Strategy<never>,
  truncate: truncate as Strategy<never>,
  extractive: extractive as Strategy<never>,
  'observation-mask': observationMask as Strategy<never>,
};

/** Parameter overrides per strategy (from a task's own configuration or the UI's picker). */
export type StrategyOverrides = Partial<Record<StrategyName, Record<string, unknown>>>;

/**
 * The configured pipeline (config.yaml `compaction.pipeline`, or `names`), each strategy
 * with its parameters taken from the config: `summarize` and `extractive` from
 * `context_storage` (seeds 000/001), `retain-summary` from `compaction` (seed 002),
 * `tool-output-trim` from `tool_output_cache` (seed 002 §1), the others from their own
 * subsections (seeds 003/004).
 */
export function buildPipeline(
  config: AppConfig,
  contextWindow: number,
  names: readonly StrategyName[] = config.compaction.pipeline,
  overrides: StrategyOverrides = {},
): PipelineStep[] {
  const seen = new Set<string>();
  const chosen =
    names === config.compaction.pipeline && !config.tool_output_cache.enabled
      ? names.filter((n) => n !== 'tool-output-trim')
      : names;
  return chosen.map((name) => {
    const strategy = STRATEGIES[name];
    if (!strategy)
      throw new CwbError(
        'bad_input',
        `unknown compaction strategy "${name}" (use ${Object.keys(STRATEGIES).join(', ')})`,
      );
    if (seen.has(name))
      throw new CwbError('bad_input', `compaction strategy "${name}" is listed twice`);
    seen.add(name);
    return {
      strategy,
      params: { ...defaultParams(name, config, contextWindow), ...overrides[name] },
    };
  });
}

export function defaultParams(
  name: StrategyName,
  config: AppConfig,
  contextWindow: number,
): Record<string, unknown> {
  const s = config.storage;
  const c = config.compaction;
  switch (name) {
    case 'summarize':
      return {
        keep_recent_messages: s.keep_recent_messages,
        min_to_compress: s.min_to_compress,
        summary_prompt: s.summary_prompt,
        compression_threshold: s.compression_threshold,
        token_threshold: s.token_threshold,
        summary_role: 'assistant',
        fact_ledger: { ...c.fact_ledger },
      };
    case 'extractive':
      return {
        keep_recent_messages: s.keep_recent_messages,
        min_to_compress: s.min_to_compress,
        threshold_tokens: s.token_threshold ?? Math.floor(contextWindow * s.compression_threshold),
        fact_ledger: { ...c.fact_ledger },
      };
    case 'retain-summary':
      return {
        threshold_ratio: c.threshold_ratio,
        model: c.model,
        summary_prompt: c.summary_prompt,
        summary_directives: c.summary_directives,
        retain_prompt: c.retain_prompt,
        retain_directives: c.retain_directives,
        retain_last_turns: c.retain_last_turns,
        fact_ledger: { ...c.fact_ledger },
      };
    case 'tool-output-trim':
      return {
        context_budget_tokens: config.tool_output_cache.context_budget_tokens,
        max_message_bytes: config.tool_output_cache.max_message_bytes,
        max_line_length: config.tool_output_cache.max_line_length,
      };
    case 'importance-window':
      return { ...c.importance_window, fact_ledger: { ...c.fact_ledger } };
    case 'condense':
      return { ...c.condense, summary_prompt: null, fact_ledger: { ...c.fact_ledger } };
    case 'truncate':
      return { ...c.truncate };
    case 'observation-mask':
      return { ...c.observation_mask, threshold_ratio: c.threshold_ratio };
  }
}
