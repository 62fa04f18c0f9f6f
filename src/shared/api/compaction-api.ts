import { z } from 'zod';
import type { MessageKind, TokenUsage } from '../task-types';
import type { CompactionQualityInfo } from '../fact-kinds';
import type { NeededNextInfo } from '../needed-next-info';
import { taskRefInput, taskUuidSchema, type BadLineInfo } from './common-schemas';
import { operation } from './operation';

/** The compaction strategies (DESIGN.md §5); core's config list is checked against this one. */
export const COMPACTION_STRATEGIES = [
  'summarize',
  'retain-summary',
  'tool-output-trim',
  'importance-window',
  'condense',
  'truncate',
  'extractive',
  'observation-mask',
] as const;
export type CompactionStrategyName = (typeof COMPACTION_STRATEGIES)[number];

export const MAX_DIFF_MESSAGES = 2000;
export const MAX_DIFF_CHARS = 20_000;

export const compactionRunInput = z.strictObject({
  uuid: taskUuidSchema,
  /** The pipeline to run, in order; default: config.yaml `compaction.pipeline`. */
  strategies: z
    .array(z.enum(COMPACTION_STRATEGIES))
    .min(1)
    .max(COMPACTION_STRATEGIES.length)
    .refine((names) => new Set(names).size === names.length, 'each strategy at most once')
    .optional(),
  /** Parameter overrides per strategy (the picker's values); unknown keys are the strategy's to refuse. */
  params: z
    .partialRecord(
      z.enum(COMPACTION_STRATEGIES),
      z.record(
        z.string().max(100),
        z.union([
          z.string().max(100_000),
          z.number(),
          z.boolean(),
          z.null(),
          z.array(z.string().max(10_000)).max(100),
        ]),
      ),
    )
    .optional(),
});

/**
 * A preview may start from a past point of the task (`atSeq`): the context as it was then,
 * compacted as a what-if and scored by what the agent needed next (FRR).
 */
export const compactionPreviewInput = compactionRunInput.extend({
  atSeq: z.number().int().min(1).optional(),
});

/** What one strategy did, or would do in a preview. */
export interface CompactionStepReport {
  strategy: string;
  applied: boolean;
  /** Why it did nothing. */
  reason?: string;
  /** The summaries.jsonl record it wrote (runs only). */
  recordId?: number;
  tokensBefore: number;
  tokensAfter: number;
  /** Seqs that left the context. */
  replacedSeqs: number[];
  /** Messages it added (summaries, markers, snapshots). */
  created: { role: string; kind: MessageKind; content: string | null; tokens: number }[];
  /** Seqs shown with other content (trimmed tool outputs, pruned JSON). */
  changedSeqs: number[];
  originalTokens: number;
  replacementTokens: number;
  summary?: string;
  /** A preview's LLM summary is an estimate: no LLM is called. */
  estimated?: boolean;
  /** Tokens saved on the span the step replaced, and the span's facts that survived. */
  quality?: CompactionQualityInfo;
}

export interface CompactionReport {
  runId: string;
  dryRun: boolean;
  tokensBefore: number;
  tokensAfter: number;
  steps: CompactionStepReport[];
  /** Messages in the context the run produced. */
  contextMessages: number;
  /** Which summarizer wrote (or would write) summaries. */
  summarizer: 'llm' | 'extractive';
  /** The run was cancelled: the steps listed ran, the rest did not. */
  cancelled?: boolean;
  /** The whole run measured on everything it replaced (absent when no step applied). */
  quality?: CompactionQualityInfo;
  /** A preview at a past point: what the agent needed next, and what this run keeps of it. */
  atSeq?: number;
  neededNext?: NeededNextInfo;
}

/**
 * A running task is compacted by its own process: the request is passed on and the result
 * arrives as compaction events. Any other task is compacted here and now.
 */
export type CompactionRunResult =
  { mode: 'ran'; report: CompactionReport } | { mode: 'requested'; uuid: string };

/** A summaries.jsonl record as the UI lists it (the plan itself is left out: it can be long). */
export interface CompactionRecordInfo {
  id: number;
  strategy: string;
  start_seq: number;
  end_seq: number;
  summary: string;
  original_tokens: number;
  summary_tokens: number;
  ratio: number;
  compressed_message_count: number;
  tokens_saved: number;
  created_at: string;
  /** Messages up to this seq are accounted for by the record's plan (absent on imported records). */
  through_seq?: number;
  tokens_before?: number;
  tokens_after?: number;
  replaced_seqs?: number[];
  changed_seqs?: number[];
  created_seqs?: number[];
  run_id?: string;
  params?: Record<string, unknown>;
  estimated?: boolean;
  /** Its quality when it was written (records from before facts were measured have none). */
  quality?: CompactionQualityInfo;
  /** Entries in the record's plan (the context it produced); null for records without one. */
  planLength: number | null;
  undone: boolean;
  /** The agent compacted its own context (Claude Code, Codex, ...): found in its session. */
  agent_compaction?: true;
  /** The agent's own count of the context it compacted (Claude Code's preTokens). */
  agent_tokens_before?: number;
  /** Which counter made tokens_before/after: "estimate" (the seed estimate). */
  token_counter?: string;
  /** Why the record looks as it does (an agent's boundary without a summary, ...). */
  note?: string;
  /** The agent's own compaction: what started it (Claude Code: "auto" or "manual"). */
  trigger?: string;
  /** The model of the compaction's own call (Claude Code's acompact run). */
  model?: string;
  llm_usage?: Partial<TokenUsage> | null;
}

export interface CompactionList {
  records: CompactionRecordInfo[];
  bad: BadLineInfo[];
}

export const undoCompactionInput = z.strictObject({
  uuid: taskUuidSchema,
  id: z.number().int().min(1),
});

export interface UndoCompactionResult {
  /** The record asked for and every later one built on it. */
  undone: number[];
  tokensBefore: number;
  tokensAfter: number;
}

export const rewindInput = z.strictObject({
  uuid: taskUuidSchema,
  seq: z.number().int().min(1),
});

export interface RewindResult extends UndoCompactionResult {
  /** The rewind's own record (undoable like a compaction). */
  recordId: number;
  /** Messages that left the context. */
  hiddenCount: number;
}

export const compactionDiffInput = z.strictObject({
  uuid: taskUuidSchema,
  id: z.number().int().min(1),
  /** The most messages sent per side (a context is bounded by the model's window, but still). */
  limit: z.number().int().min(1).max(MAX_DIFF_MESSAGES).default(MAX_DIFF_MESSAGES),
});

/** One message of a context as the diff page shows it. */
export interface DiffMessage {
  /** Its seq in messages.jsonl; null for a message that exists only in the view (a synthetic tool result). */
  seq: number | null;
  role: string;
  kind?: MessageKind;
  /** As the model saw it (a trimmed output shows its placeholder), cut at MAX_DIFF_CHARS. */
  content: string;
  /** Tool calls as `name(arguments)` lines, cut like the content. */
  toolCalls?: string;
  toolName?: string;
  tokens: number;
  /** The content or tool calls were cut for the page. */
  clipped: boolean;
}

export interface DiffSide {
  messages: DiffMessage[];
  /** Messages in the whole context (more than sent when over the limit). */
  total: number;
  /** Tokens of the whole context (seed estimate). */
  tokens: number;
}

/** A compaction with the context before it and the context it produced. */
export interface CompactionDiff {
  record: CompactionRecordInfo;
  /** The compaction in effect just before this one (it worked on that one's context). */
  previousId: number | null;
  before: DiffSide;
  after: DiffSide;
  /**
   * Measured on the two contexts: the span the compaction replaced (the messages of `before`
   * not in `after` as they were), its tokens, and its facts kept and lost.
   */
  quality: CompactionQualityInfo;
}

export const neededNextInput = z.strictObject({
  uuid: taskUuidSchema,
  id: z.number().int().min(1),
});

/** What the pipeline picker starts from: the configured pipeline and each strategy's parameters. */
export interface CompactionDefaults {
  pipeline: CompactionStrategyName[];
  params: Record<CompactionStrategyName, Record<string, unknown>>;
  contextWindow: number;
  summarizer: 'llm' | 'extractive';
  /** A running task compacts itself with the configured pipeline (a run is a request). */
  running: boolean;
}

/** What a rewind would do, computed without doing it. */
export interface RewindPreview {
  /** Messages in the context now that would leave it. */
  hiddenCount: number;
  firstHiddenSeq: number | null;
  lastHiddenSeq: number | null;
  hiddenTokens: number;
  /** Compactions in effect that would be undone (they describe messages after the seq). */
  undone: number[];
  /** Messages in the history (the highest seq one can rewind to). */
  lastSeq: number;
}

export const evaluateCompactionInput = z.strictObject({
  uuid: taskUuidSchema,
  /** Candidates to score, each one strategy or a pipeline; default: every strategy alone and the configured pipeline. */
  candidates: z
    .array(z.array(z.enum(COMPACTION_STRATEGIES)).min(1).max(COMPACTION_STRATEGIES.length))
    .min(1)
    .max(20)
    .optional(),
  /**
   * Score on the context in effect just before this compaction (the one its diff shows as
   * "before"), so strategies compete on the span it replaced; default: the context now.
   */
  beforeRecord: z.number().int().min(1).optional(),
});

/** One strategy (or pipeline) scored on a task: an offline dry run, measured on its span. */
export interface CompactionEvalPoint {
  /** `extractive`, or `tool-output-trim+summarize` for a pipeline. */
  label: string;
  strategies: CompactionStrategyName[];
  /** The configured pipeline. */
  isDefault: boolean;
  applied: boolean;
  /** Why nothing applied. */
  reason?: string;
  quality?: CompactionQualityInfo;
  tokensBefore: number;
  tokensAfter: number;
}

export interface CompactionEvaluation {
  points: CompactionEvalPoint[];
}

export interface CancelCompactionResult {
  /** False when no compaction of the task was running here. */
  cancelled: boolean;
}

export const compactionOperations = {
  listCompactions: operation(taskRefInput).returns<CompactionList>(),
  previewCompaction: operation(compactionPreviewInput).returns<CompactionReport>(),
  runCompaction: operation(compactionRunInput).returns<CompactionRunResult>(),
  undoCompaction: operation(undoCompactionInput).returns<UndoCompactionResult>(),
  rewindTask: operation(rewindInput).returns<RewindResult>(),
  compactionDiff: operation(compactionDiffInput).returns<CompactionDiff>(),
  /**
   * What the agent needed next after a compaction (FRR) and the re-reads it paid; for an
   * agent's own compaction, the workbench's pipeline on the same prefix beside it. Apart from
   * compactionDiff: that pipeline run takes a moment and the diff shows without it.
   */
  compactionNeededNext: operation(neededNextInput).returns<NeededNextInfo>(),
  compactionDefaults: operation(taskRefInput).returns<CompactionDefaults>(),
  cancelCompaction: operation(taskRefInput).returns<CancelCompactionResult>(),
  previewRewind: operation(rewindInput).returns<RewindPreview>(),
  evaluateCompaction: operation(evaluateCompactionInput).returns<CompactionEvaluation>(),
};
