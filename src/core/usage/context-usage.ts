import path from 'node:path';
import type { ContextUsageSeries } from '../../shared/api/task-view-api';
import { allRecords } from '../compaction/compaction-record';
import { TASK_FILES } from '../store/contexts-layout';
import type { UsageFiguresCache } from './usage-cache';
import { Downsampler, UsageTracker, type UsageCompaction } from './usage-series';

export interface UsageLimits {
  contextWindow: number;
  thresholdRatio: number;
  /** A fixed token threshold from the config wins over the ratio. */
  thresholdTokens: number | null;
}

/**
 * The context-usage series of a task, computed where the files are. The figures of every
 * message come from `cache` (messages.jsonl is read once, then only what was appended), so
 * a request costs one pass over a few compact arrays and the downsampled points.
 */
export async function contextUsage(
  taskDir: string,
  limits: UsageLimits,
  maxPoints: number,
  cache: UsageFiguresCache,
): Promise<ContextUsageSeries> {
  const records = allRecords(taskDir);
  const compactions: UsageCompaction[] = records.map((r) => ({
    id: r.id,
    // Imported records have no through_seq; their range ends where the context resumed.
    throughSeq: typeof r.through_seq === 'number' ? r.through_seq : r.end_seq,
    tokensAfter: typeof r.tokens_after === 'number' ? r.tokens_after : r.summary_tokens,
    undone: r.undone,
  }));
  const { samples, lines: total } = await cache.figures(path.join(taskDir, TASK_FILES.messages));
  const tracker = new UsageTracker(compactions);
  const sampler = Downsampler.forTotal(total, maxPoints);
  for (let i = 0; i < samples.length; i++) sampler.add(tracker.pushFigures(samples.at(i)));
  const points = sampler.flush();
  return {
    seqs: points.map((p) => p.seq),
    tokens: points.map((p) => p.tokens),
    sources: points.map((p) => p.source),
    times: points.map((p) => p.time),
    compactions: records.map((r, i) => ({
      id: r.id,
      seq: compactions[i]!.throughSeq,
      strategy: r.strategy,
      tokensBefore: typeof r.tokens_before === 'number' ? r.tokens_before : r.original_tokens,
      tokensAfter: compactions[i]!.tokensAfter,
      undone: r.undone,
    })),
    contextWindow: limits.contextWindow,
    thresholdTokens:
      limits.thresholdTokens ?? Math.floor(limits.contextWindow * limits.thresholdRatio),
    thresholdRatio: limits.thresholdRatio,
    current: tracker.current,
    totalMessages: total,
    bucketSize: sampler.bucketSize,
  };
}
