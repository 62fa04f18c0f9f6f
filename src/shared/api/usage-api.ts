import { z } from 'zod';
import { operation } from './operation';

export const USAGE_GROUPS = ['day', 'week', 'month', 'model', 'agent', 'repo'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date YYYY-MM-DD');

export const usageReportInput = z.strictObject({
  by: z.enum(USAGE_GROUPS).default('day'),
  /** First and last local day of the period (inclusive). */
  since: day.optional(),
  until: day.optional(),
  /** Rows by time split further by model or agent (the stacked chart). */
  split: z.enum(['model', 'agent']).optional(),
  agent: z.string().max(100).optional(),
  repo: z.string().min(1).max(500).optional(),
  /** The IANA time zone days are counted in (the host's when absent). */
  timeZone: z.string().min(1).max(100).optional(),
  /** How many of the period's most expensive sessions to list. */
  top: z.number().int().min(0).max(100).default(10),
});
export type UsageReportInput = z.input<typeof usageReportInput>;

/** Tokens by kind (input excludes cache reads and writes, as providers count it). */
export interface UsageTokens {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
}

export interface UsageCost {
  /** Dollars of the usage whose model has a price. */
  usd: number;
  /** Tokens of usage without a price (no model, or a model the price table lacks): apart, never $0. */
  unknown_tokens: number;
  /** What cache reads saved against paying the input price for the same tokens. */
  saved_usd: number;
}

export interface UsageRow {
  /** The day, week (its Monday), month, model, agent or repository. */
  key: string;
  /** Tasks with usage in this row. */
  tasks: number;
  tokens: UsageTokens;
  cost: UsageCost;
  /** With `split`: the row's cost per model or agent (unknown ones under `unknown_tokens`). */
  parts?: { key: string; usd: number; unknown_tokens: number }[];
}

export interface UsageTopSession {
  uuid: string;
  title: string | null;
  agent: string;
  model: string | null;
  tokens: UsageTokens;
  /** null when the session's model has no price. */
  usd: number | null;
}

export interface UsageReport {
  by: UsageGroup;
  since: string | null;
  until: string | null;
  timeZone: string;
  rows: UsageRow[];
  total: Omit<UsageRow, 'key' | 'parts'>;
  top: UsageTopSession[];
  /** The price table's version (config.yaml's `pricing:` on top). */
  prices: string;
}

export const usageOperations = {
  usageReport: operation(usageReportInput).returns<UsageReport>(),
};
