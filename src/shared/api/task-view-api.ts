import { z } from 'zod';
import type { PlanningEntry, ToolRecord } from '../task-types';
import { taskUuidSchema, type BadLineInfo } from './common-schemas';
import { operation } from './operation';

export const MAX_USAGE_POINTS = 4000;
export const MAX_RECORD_PAGE = 5000;

export const contextUsageInput = z.strictObject({
  uuid: taskUuidSchema,
  /** The series is downsampled on the host to at most about this many points. */
  maxPoints: z.number().int().min(10).max(MAX_USAGE_POINTS).default(1500),
});

/** Where a context figure comes from (DESIGN.md §5: show which kind a figure is). */
export type UsageSource = 'provider' | 'estimate';

/**
 * Tokens in the model's context over the task, column by column (compact for large tasks).
 * `sources[i]` says whether `tokens[i]` was reported by the provider or estimated.
 */
export interface ContextUsageSeries {
  seqs: number[];
  tokens: number[];
  sources: UsageSource[];
  /** Epoch milliseconds of the message (null when it has no readable timestamp). */
  times: (number | null)[];
  /** Compactions as marks on the series (undone ones included, flagged). */
  compactions: {
    id: number;
    seq: number;
    strategy: string;
    tokensBefore: number;
    tokensAfter: number;
    undone: boolean;
  }[];
  /** The context now: the last point, or less when a compaction came after the last message. */
  current: number;
  contextWindow: number;
  /** contextWindow × thresholdRatio, or the configured token threshold. */
  thresholdTokens: number;
  thresholdRatio: number;
  totalMessages: number;
  /** Messages per point after downsampling (1 = every message). */
  bucketSize: number;
}

const recordPage = {
  uuid: taskUuidSchema,
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(MAX_RECORD_PAGE).default(1000),
};

export const listPlanningInput = z.strictObject(recordPage);
export const listToolCallsInput = z.strictObject(recordPage);

export interface PlanningList {
  records: PlanningEntry[];
  bad: BadLineInfo[];
}

/** A tools.jsonl record with the seq of the assistant message that made the call (null when unknown). */
export type ToolCallRow = ToolRecord & { message_seq: number | null };

export interface ToolCallList {
  records: ToolCallRow[];
  bad: BadLineInfo[];
}

export const taskViewOperations = {
  contextUsage: operation(contextUsageInput).returns<ContextUsageSeries>(),
  listPlanning: operation(listPlanningInput).returns<PlanningList>(),
  listToolCalls: operation(listToolCallsInput).returns<ToolCallList>(),
};
