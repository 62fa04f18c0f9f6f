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

export const contextBreakdownInput = z.strictObject({
  uuid: taskUuidSchema,
  /** The context right after this message; absent: the context the model sees now. */
  at: z.number().int().min(1).optional(),
  /** How many of each part's biggest messages to list. */
  top: z.number().int().min(0).max(50).default(8),
});

/** What a part of a context is made of, in the order a context reads. */
export const CONTEXT_PART_KINDS = [
  'system',
  'tool-definitions',
  'unrecorded',
  'summary',
  'user',
  'attachments',
  'assistant',
  'thinking',
  'tool-calls',
  'tool-output',
] as const;
export type ContextPartKind = (typeof CONTEXT_PART_KINDS)[number];

export interface ContextPart {
  kind: ContextPartKind;
  /** tool-output parts are one per tool. */
  tool?: string;
  tokens: number;
  /** How many messages this part takes tokens from. */
  messages: number;
  /** Its biggest messages, biggest first (seq null: a message only the context holds). */
  biggest: { seq: number | null; tokens: number; preview: string }[];
}

/**
 * What fills a context: its parts add up to `total_tokens` exactly. Tokens are the counts
 * the usage chart shows (seed estimates, or the agent's usage where it recorded it), each
 * message's split between its text and its tool calls in proportion to their estimates.
 * `unrecorded` is what the provider counted in the last call's input beyond everything the
 * transcript holds before it: an agent's system prompt, tool definitions and memory files,
 * which its session files do not keep.
 */
export interface ContextBreakdown {
  /** The message the context is taken after; null: now. */
  at_seq: number | null;
  last_seq: number;
  total_tokens: number;
  parts: ContextPart[];
  /**
   * What the provider reported for the last call in this context (input, cache read and
   * cache write together), when the session records it: the difference to `total_tokens`
   * is what the transcript does not hold (an agent's system prompt and tool definitions).
   */
  reported: { tokens: number; seq: number } | null;
}

export const taskViewOperations = {
  contextBreakdown: operation(contextBreakdownInput).returns<ContextBreakdown>(),
  contextUsage: operation(contextUsageInput).returns<ContextUsageSeries>(),
  listPlanning: operation(listPlanningInput).returns<PlanningList>(),
  listToolCalls: operation(listToolCallsInput).returns<ToolCallList>(),
};
