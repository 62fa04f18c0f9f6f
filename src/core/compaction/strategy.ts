import type { ViewEntry } from './view';
import type { TokenUsage } from '../../shared/task-types';
import type { ToolOutputStore } from '../store/tool-output-store';

/** Writes summaries: the configured model, or the offline extractive digest. */
export interface Summarizer {
  readonly kind: 'llm' | 'extractive';
  /**
   * Summarizes entries. `prompt` contains `{messages}`, replaced by the entries formatted as
   * `[role]: content` lines (seed 000 §7.2); the extractive summarizer ignores the prompt.
   */
  summarize(
    entries: readonly ViewEntry[],
    prompt: string,
    options?: SummarizeOptions,
  ): Promise<string>;
  /** A free-form completion (retain + summary, seed 002 §2.6); absent without an LLM. */
  complete?(prompt: string, options?: SummarizeOptions): Promise<string>;
  /** Token usage of the model calls since the last take (compaction records keep it). */
  takeUsage?(): TokenUsage | undefined;
}

export interface SummarizeOptions {
  /** seed 002 §2.6.2: a different (cheaper, or longer-context) model for compaction. */
  model?: string | null;
  system?: string;
  signal?: AbortSignal;
}

export type RunReason = 'auto' | 'manual' | 'context-length' | 'final';

export interface StrategyContext {
  /** The effective context now (tool pairs intact, system prompt first when there is one). */
  view: readonly ViewEntry[];
  contextWindow: number;
  maxOutputTokens: number;
  /** Tokens the provider reported for the last call (authoritative for triggers when present). */
  lastUsageTokens: number | undefined;
  /** auto: a strategy runs only when its own trigger says so; otherwise it always runs. */
  reason: RunReason;
  summarizer: Summarizer;
  toolOutputs: ToolOutputStore;
  /** A dry run calls no LLM and writes nothing: LLM summaries are estimated. */
  dryRun: boolean;
  /**
   * Tokens of the context when the run began, before its first step: what a cap on the new
   * context's share is measured against (a step sees the view the steps before it left).
   */
  tokensAtStart?: number;
  signal?: AbortSignal;
}

export type StrategyResult =
  | { applied: false; reason: string }
  | {
      applied: true;
      /** The new context. Entries with `create` are new messages; the rest come from `view`. */
      view: ViewEntry[];
      /** The summary or marker text shown for this compaction (summaries.jsonl `summary`). */
      summary: string;
      /** True when `summary` is a dry-run estimate rather than real output. */
      estimated?: boolean;
    };

/** Cheap figures about the context, known without reading it (for automatic triggers). */
export interface ContextStats {
  /** Seed estimate of current.jsonl. */
  currentTokens: number;
  /** Provider-reported total of the last call, when known (authoritative, seed 002 §2.5). */
  lastUsageTokens: number | undefined;
  /** Lines in current.jsonl. */
  messageCount: number;
  contextWindow: number;
  maxOutputTokens: number;
}

export interface Strategy<P> {
  readonly name: string;
  /**
   * The automatic trigger: whether this strategy should run now. It sees only ContextStats,
   * so the agent loop can ask after every step without reading the context. A strategy
   * may still decline in `run` (e.g. too few messages to summarize).
   */
  needed(stats: ContextStats, params: P): boolean;
  /** Plans the new context. Parameters arrive with their defaults filled in. */
  run(ctx: StrategyContext, params: P): Promise<StrategyResult>;
}

/** The tokens a trigger compares: the provider's figure when there is one, else the estimate. */
export function triggerTokens(stats: ContextStats): number {
  return stats.lastUsageTokens ?? stats.currentTokens;
}
