import crypto from 'node:crypto';
import type { TaskContextManager } from '../store/task-context-manager';
import type { ToolOutputStore } from '../store/tool-output-store';
import type { CurrentMessage, MessageKind, TokenUsage } from '../../shared/task-types';
import { readView } from './read-view';
import { writeCurrent } from './materialize';
import { repairToolPairs } from './tool-pairing';
import { splitSystem } from './format-messages';
import { entryFromRecord, entrySeq, viewTokens, type ViewEntry } from './view';
import type { RunReason, Strategy, StrategyContext, Summarizer } from './strategy';
import { compactionQuality, storedQuality, type CompactionQuality } from './compaction-quality';

/**
 * What a compaction works on: a task opened for writing, or — for a dry run, which writes
 * nothing — just its folder and tool output store (safe beside a running task's process).
 */
export type CompactionTarget = TaskContextManager | { dir: string; toolOutputs: ToolOutputStore };

export interface PipelineStep {
  strategy: Strategy<never>;
  params: unknown;
}

export interface CompactionOptions {
  steps: readonly PipelineStep[];
  reason: RunReason;
  dryRun: boolean;
  summarizer: Summarizer;
  contextWindow: number;
  maxOutputTokens: number;
  lastUsageTokens?: number;
  signal?: AbortSignal;
  /**
   * Measure each step's quality (facts kept, tokens saved on its span); default: in dry runs.
   * It reads the span's facts again, so the task process's automatic runs skip it (a
   * diff measures any record on demand).
   */
  measureQuality?: boolean;
  /** Dry runs only: plan from this context instead of the task's own (e.g. a past one). */
  initialView?: readonly ViewEntry[];
  /** Told about each step as it ends (the UI shows a run's progress step by step). */
  onStep?: (step: StepReport, index: number, total: number) => void;
}

/** What one strategy did (or would do, in a dry run). */
export interface StepReport {
  strategy: string;
  applied: boolean;
  /** Why it did nothing. */
  reason?: string;
  recordId?: number;
  tokensBefore: number;
  tokensAfter: number;
  /** Seqs that left the context. */
  replacedSeqs: number[];
  /** The messages the step added (summaries, markers, snapshots). */
  created: { role: string; kind: MessageKind; content: string | null; tokens: number }[];
  /** Messages shown with other content (trimmed or pruned). */
  changedSeqs: number[];
  /** Tokens of what left or changed, and of what took its place (seed 000 original/summary tokens). */
  originalTokens: number;
  replacementTokens: number;
  summary?: string;
  estimated?: boolean;
  durationMs?: number;
  /** Token usage of the model calls the step made (its summary). */
  llmUsage?: TokenUsage;
  /** Tokens saved on the span the step replaced and the span's facts that survived. */
  quality?: CompactionQuality;
}

export interface CompactionRun {
  runId: string;
  dryRun: boolean;
  reason: RunReason;
  tokensBefore: number;
  tokensAfter: number;
  steps: StepReport[];
  /** The context the run produced (what the model would see next). */
  view: ViewEntry[];
  /** The whole run measured on everything it replaced (undefined when no step applied). */
  quality?: CompactionQuality;
}

/**
 * Runs a pipeline of strategies over a task's effective context (DESIGN.md §5). Each
 * applied step stores the messages it created (tagged with its record id, kept out of the
 * context except through its plan), appends a record with the plan it produced to
 * summaries.jsonl, and at the end current.jsonl is rebuilt atomically from the last plan.
 * messages.jsonl only grows. A dry run does all the planning, calls no LLM and writes nothing.
 */
export async function runCompaction(
  target: CompactionTarget,
  options: CompactionOptions,
): Promise<CompactionRun> {
  const task = 'addMessage' in target ? target : undefined;
  if (!task && !options.dryRun)
    throw new Error('a compaction that writes needs the task opened for writing');
  const runId = crypto.randomUUID();
  if (options.initialView && !options.dryRun)
    throw new Error('a compaction that writes starts from the task’s own context');
  let view = repairToolPairs(
    options.initialView ? [...options.initialView] : readView(target.dir).view,
  );
  const initial = view;
  const measure = options.measureQuality ?? options.dryRun;
  const tokensBefore = viewTokens(view);
  const steps: StepReport[] = [];
  for (const step of options.steps) {
    if (options.signal?.aborted) break;
    const before = view;
    const ctx: StrategyContext = {
      view: before,
      contextWindow: options.contextWindow,
      maxOutputTokens: options.maxOutputTokens,
      lastUsageTokens: options.lastUsageTokens,
      reason: options.reason,
      summarizer: options.summarizer,
      toolOutputs: target.toolOutputs,
      dryRun: options.dryRun,
      tokensAtStart: tokensBefore,
      ...(options.signal && { signal: options.signal }),
    };
    const started = performance.now();
    let result: Awaited<ReturnType<Strategy<unknown>['run']>>;
    try {
      result = await (step.strategy as Strategy<unknown>).run(ctx, step.params);
    } catch (error) {
      // Cancelled mid-step (its LLM call aborted): the steps already stored stay in effect
      // and current.jsonl is still rebuilt from them below.
      if (options.signal?.aborted) break;
      throw error;
    }
    const llmUsage = options.summarizer.takeUsage?.();
    let after = result.applied ? repairToolPairs(keepSystemFirst(before, result.view)) : before;
    const refusal = !result.applied ? result.reason : refuse(before, after, options.reason);
    if (refusal !== undefined || !result.applied) {
      const tokens = viewTokens(before);
      steps.push({
        strategy: step.strategy.name,
        applied: false,
        reason: refusal ?? '',
        tokensBefore: tokens,
        tokensAfter: tokens,
        replacedSeqs: [],
        created: [],
        changedSeqs: [],
        originalTokens: 0,
        replacementTokens: 0,
      });
      options.onStep?.(steps.at(-1)!, steps.length - 1, options.steps.length);
      continue;
    }
    const report = describeStep(
      step.strategy.name,
      before,
      after,
      result.summary,
      result.estimated === true,
    );
    report.durationMs = Math.round(performance.now() - started);
    if (llmUsage) report.llmUsage = llmUsage;
    if (measure) report.quality = compactionQuality(before, after);
    if (task && !options.dryRun) {
      // The record about to be appended names the outputs this step copied aside.
      await target.toolOutputs.sync();
      after = persistStep(task, step, after, report, runId);
    }
    steps.push(report);
    options.onStep?.(report, steps.length - 1, options.steps.length);
    view = after;
    // Later steps see the context the provider would: the last call's usage no longer applies.
    options = { ...options, lastUsageTokens: undefined };
  }
  if (task && !options.dryRun && steps.some((s) => s.applied)) {
    await writeCurrent(task.messages.currentPath, view);
    task.messages.currentReplaced();
  }
  return {
    runId,
    dryRun: options.dryRun,
    reason: options.reason,
    tokensBefore,
    tokensAfter: viewTokens(view),
    steps,
    view,
    ...(measure && steps.some((s) => s.applied) && { quality: compactionQuality(initial, view) }),
  };
}

/** Automatic runs that save less than this share are refused, so compaction does not repeat every step. */
export const MIN_AUTO_SAVING = 0.1;

/** Why a planned step is not applied, or undefined when it is. */
function refuse(
  before: readonly ViewEntry[],
  after: readonly ViewEntry[],
  reason: RunReason,
): string | undefined {
  const from = viewTokens(before);
  const to = viewTokens(after);
  // A compaction exists to make the context smaller; one that would grow it is refused.
  if (to > from) return `it would make the context larger (${from} → ${to} tokens)`;
  const saving = from > 0 ? (from - to) / from : 0;
  if ((reason === 'auto' || reason === 'final') && saving < MIN_AUTO_SAVING) {
    return `it would save only ${Math.round(saving * 100)} % (${from} → ${to} tokens); automatic compaction needs at least ${MIN_AUTO_SAVING * 100} %, so it does not repeat every step`;
  }
  return undefined;
}

/** The system prompt survives every strategy: if a strategy dropped it, it goes back first. */
function keepSystemFirst(before: readonly ViewEntry[], after: ViewEntry[]): ViewEntry[] {
  const { system } = splitSystem(before);
  if (system.length === 0) return after;
  const rest = after.filter(
    (e) =>
      !system.includes(e) && !(e.record && system.some((s) => s.record?.seq === e.record!.seq)),
  );
  return [...system, ...rest];
}

function describeStep(
  strategy: string,
  before: readonly ViewEntry[],
  after: readonly ViewEntry[],
  summary: string,
  estimated: boolean,
): StepReport {
  const afterSeqs = new Map<number, ViewEntry>();
  for (const e of after) {
    const seq = entrySeq(e);
    if (seq !== undefined) afterSeqs.set(seq, e);
  }
  const replacedSeqs: number[] = [];
  const changedSeqs: number[] = [];
  let originalTokens = 0;
  let replacementTokens = 0;
  for (const e of before) {
    const seq = entrySeq(e);
    if (seq === undefined) continue;
    const now = afterSeqs.get(seq);
    if (!now) {
      replacedSeqs.push(seq);
      originalTokens += e.tokens;
    } else if (now.message.content !== e.message.content) {
      changedSeqs.push(seq);
      originalTokens += e.tokens;
      replacementTokens += now.tokens;
    }
  }
  const created = after
    .filter((e) => e.create !== undefined)
    .map((e) => ({
      role: e.message.role,
      kind: e.create!,
      content: e.message.content,
      tokens: e.tokens,
    }));
  for (const c of created) replacementTokens += c.tokens;
  return {
    strategy,
    applied: true,
    tokensBefore: viewTokens(before),
    tokensAfter: viewTokens(after),
    replacedSeqs,
    created,
    changedSeqs,
    originalTokens,
    replacementTokens,
    summary,
    ...(estimated && { estimated }),
  };
}

/** Stores the step: its new messages (tagged), then its record with the plan. Returns the view with stored entries. */
function persistStep(
  task: TaskContextManager,
  step: PipelineStep,
  view: ViewEntry[],
  report: StepReport,
  runId: string,
): ViewEntry[] {
  const id = task.summaries.nextId;
  const createdSeqs: number[] = [];
  const stored = view.map((entry) => {
    if (entry.create === undefined) return entry;
    const message: CurrentMessage = entry.message;
    const record = task.addMessage({
      ...message,
      kind: entry.create,
      compaction_id: id,
      historyOnly: true,
    });
    createdSeqs.push(record.seq);
    return entryFromRecord(record);
  });
  const touched = [...report.replacedSeqs, ...report.changedSeqs];
  const recordId = task.recordSummary({
    strategy: step.strategy.name,
    start_seq: touched.reduce((a, b) => Math.min(a, b), touched[0] ?? 0),
    end_seq: touched.reduce((a, b) => Math.max(a, b), 0),
    summary: report.summary ?? '',
    original_tokens: report.originalTokens,
    summary_tokens: report.replacementTokens,
    compressed_message_count: report.replacedSeqs.length,
    extra: {
      plan: stored.map((e) => e.item),
      through_seq: task.messages.count,
      tokens_before: report.tokensBefore,
      tokens_after: report.tokensAfter,
      replaced_seqs: report.replacedSeqs,
      changed_seqs: report.changedSeqs,
      created_seqs: createdSeqs,
      run_id: runId,
      params: (step.params ?? {}) as Record<string, unknown>,
      duration_ms: report.durationMs ?? 0,
      llm_usage: report.llmUsage ?? null,
      ...(report.quality && { quality: storedQuality(report.quality) }),
      ...(report.estimated && { estimated: true }),
    },
  });
  if (recordId !== id)
    throw new Error(
      `compaction record id ${recordId} differs from the id ${id} its messages were tagged with`,
    );
  report.recordId = id;
  return stored;
}
