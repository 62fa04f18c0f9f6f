import fs from 'node:fs';
import path from 'node:path';
import type { ContextUsageSeries } from '../../shared/api/task-view-api';
import type { MessageRecord } from '../../shared/task-types';
import { allRecords } from '../compaction/compaction-record';
import { readLinesSync } from '../jsonl/line-reader';
import { OffsetIndex } from '../jsonl/offset-index';
import { TASK_FILES } from '../store/contexts-layout';
import { asMessageRecord } from '../store/message-shape';
import { Downsampler, UsageTracker, type UsageCompaction } from './usage-series';

export interface UsageLimits {
  contextWindow: number;
  thresholdRatio: number;
  /** A fixed token threshold from the config wins over the ratio. */
  thresholdTokens: number | null;
}

/**
 * The context-usage series of a task, computed where the files are: messages.jsonl is
 * streamed once (64 KiB at a time, one parsed line held at once) and downsampled as it
 * goes, so a 200,000-message task costs one pass and a few thousand points of memory.
 */
export function contextUsage(
  taskDir: string,
  limits: UsageLimits,
  maxPoints: number,
): ContextUsageSeries {
  const records = allRecords(taskDir);
  const compactions: UsageCompaction[] = records.map((r) => ({
    id: r.id,
    // Imported records have no through_seq; their range ends where the context resumed.
    throughSeq: typeof r.through_seq === 'number' ? r.through_seq : r.end_seq,
    tokensAfter: typeof r.tokens_after === 'number' ? r.tokens_after : r.summary_tokens,
    undone: r.undone,
  }));
  const file = path.join(taskDir, TASK_FILES.messages);
  const total = countMessages(taskDir);
  const tracker = new UsageTracker(compactions);
  const sampler = Downsampler.forTotal(total, maxPoints);
  if (fs.existsSync(file)) {
    for (const entry of readLinesSync(file)) {
      if (entry.partial) break;
      if ('tooLong' in entry || entry.text.trim() === '') continue;
      let message: MessageRecord;
      try {
        const checked = asMessageRecord(JSON.parse(entry.text));
        if (!checked.ok) continue;
        message = checked.value;
      } catch {
        continue; // reported by readMessages; a chart skips what it cannot read
      }
      sampler.add(tracker.push(message));
    }
  }
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
    totalMessages: total,
    bucketSize: sampler.bucketSize,
  };
}

function countMessages(taskDir: string): number {
  const file = path.join(taskDir, TASK_FILES.messages);
  if (!fs.existsSync(file)) return 0;
  const index = OffsetIndex.open(file, path.join(taskDir, TASK_FILES.messagesIndex), {
    readonly: true,
  });
  try {
    return index.count;
  } finally {
    index.close();
  }
}
