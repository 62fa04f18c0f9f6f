import type { TaskContextManager } from '../store/task-context-manager';
import type { WorkerEvent } from '../../shared/worker-protocol';
import type { CompactionReason, Compactor } from '../agent/agent-types';
import type { PipelineStep } from './compaction-engine';
import { activeRecords } from './compaction-record';
import type { ContextStats, Summarizer } from './strategy';

/** How far back the compactor looks for the last call's usage. */
const USAGE_LOOKBACK = 16;

export interface CompactorOptions {
  task: TaskContextManager;
  /**
   * The configured pipeline (see buildPipeline), asked for when compaction is first
   * considered: a task process with compaction off never loads the strategies.
   */
  steps: () => Promise<readonly PipelineStep[]>;
  enabled: boolean;
  /** false: only on request or when the provider says the context is too long (seed 002 §2.5). */
  auto: boolean;
  summarizer: Summarizer;
  contextWindow: number;
  maxOutputTokens: number;
  emit?: (event: WorkerEvent) => void;
  signal?: AbortSignal;
}

/**
 * Compaction as the agent loop calls it (seed 002 §2.8): after each call, after tools and
 * before finishing, each strategy's own trigger decides from cheap figures whether it
 * runs; a context-length error or a request runs the whole pipeline.
 */
export function createCompactor(options: CompactorOptions): Compactor {
  const { task } = options;
  // Only this process changes the task's compactions while it runs, so the newest one is
  // read once and then tracked here.
  let compactedThrough = activeRecords(task.dir).records.at(-1)?.through_seq ?? 0;
  let pipeline: Promise<readonly PipelineStep[]> | undefined;
  return {
    async maybeCompact(reason: CompactionReason) {
      const none = { compacted: false, tokensBefore: 0, tokensAfter: 0 };
      if (!options.enabled) return none;
      const automatic = reason === 'after-llm' || reason === 'after-tools' || reason === 'final';
      if (automatic && !options.auto) return none;
      const all = await (pipeline ??= options.steps());
      if (all.length === 0) return none;
      const stats = contextStats(
        task,
        options.contextWindow,
        options.maxOutputTokens,
        compactedThrough,
      );
      const steps = automatic
        ? all.filter((s) => s.strategy.needed(stats, s.params as never))
        : all;
      if (steps.length === 0) return none;
      options.emit?.({ type: 'compaction-started', uuid: task.uuid, reason });
      // The engine (and the fact extraction it runs) is loaded the first time it runs.
      const { runCompaction } = await import('./compaction-engine');
      const run = await runCompaction(task, {
        steps,
        reason: automatic
          ? reason === 'final'
            ? 'final'
            : 'auto'
          : reason === 'context-length'
            ? 'context-length'
            : 'manual',
        dryRun: false,
        summarizer: options.summarizer,
        contextWindow: options.contextWindow,
        maxOutputTokens: options.maxOutputTokens,
        ...(stats.lastUsageTokens !== undefined && { lastUsageTokens: stats.lastUsageTokens }),
        ...(options.signal && { signal: options.signal }),
      });
      const compacted = run.steps.some((s) => s.applied);
      if (compacted) compactedThrough = task.messages.count;
      return { compacted, tokensBefore: run.tokensBefore, tokensAfter: run.tokensAfter };
    },
  };
}

/**
 * The figures triggers use. The provider's usage of the last call counts only while no
 * compaction has happened since: after one, it describes a context that no longer exists.
 */
export function contextStats(
  task: TaskContextManager,
  contextWindow: number,
  maxOutputTokens: number,
  compactedThrough: number,
): ContextStats {
  const tail = task.messages.readTail(USAGE_LOOKBACK).messages;
  const last = [...tail].reverse().find((m) => m.role === 'assistant' && m.usage);
  const usage = last && last.seq > compactedThrough ? last.usage!.total_tokens : undefined;
  return {
    currentTokens: task.messages.currentTokenCount(),
    lastUsageTokens: usage,
    messageCount: task.messages.currentCount(),
    contextWindow,
    maxOutputTokens,
  };
}
