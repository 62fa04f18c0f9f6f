import type { TaskRow } from '../../shared/task-types';
import type { AppConfig } from '../config/app-config';
import type { StrategyName } from '../config/strategy-names';
import { secretValues } from '../config/secrets';
import { createLlmClient, lookupModel } from '../llm';
import { providerSettings } from '../llm/provider-info';
import type { ContextStore } from '../store/context-store';
import { ToolOutputStore } from '../store/tool-output-store';
import { runCompaction, type CompactionRun } from './compaction-engine';
import { buildPipeline, type StrategyOverrides } from './pipeline';
import { llmSummarizer } from './llm-summarizer';
import { extractiveSummarizer } from './extractive-digest';
import { undoCompaction, rewindTo, type RewindResult, type UndoResult } from './undo';
import type { Summarizer } from './strategy';
import { pointAt, type CompactionPoint } from './compaction-points';
import { CwbError } from '../errors';

/** Used when neither the task nor the registry knows the model's window (an imported transcript, say). */
export const FALLBACK_CONTEXT_WINDOW = 128_000;

export interface CompactRequest {
  /** Strategies to run, in order (default: config `compaction.pipeline`). */
  pipeline?: readonly StrategyName[];
  overrides?: StrategyOverrides;
  dryRun: boolean;
  /** Use the extractive digest instead of the configured model. */
  offline?: boolean;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** A dry run only: start from the context as it was at this seq (a what-if at a past point). */
  atSeq?: number;
}

export type CompactOutcome =
  | { kind: 'ran'; run: CompactionRun; point?: CompactionPoint }
  | { kind: 'requested'; uuid: string };

/**
 * Compaction on demand, for the CLI, `cwb serve` and the app. A task whose process is
 * running is asked to compact itself (its process is the only writer); a dry run of it is
 * planned here from its files without writing. Any other task is opened for maintenance.
 */
export async function compactTask(
  store: ContextStore,
  config: AppConfig,
  uuid: string,
  request: CompactRequest,
): Promise<CompactOutcome> {
  const row = store.requireTask(uuid);
  const window = contextWindowOf(row, config);
  const point = request.atSeq === undefined ? undefined : pastPoint(store, row, request);
  const options = {
    steps: buildPipeline(config, window.contextWindow, request.pipeline, request.overrides),
    reason: 'manual' as const,
    dryRun: request.dryRun,
    // Someone asked (the CLI, the UI): they are shown what it kept.
    measureQuality: true,
    summarizer: summarizerFor(config, request),
    ...window,
    ...(request.signal && { signal: request.signal }),
    ...(point && { initialView: point.prefix }),
  };
  if (request.dryRun) {
    // Nothing is written: the task's files are read as they are, running or not (opening
    // them for writing would repair them, or make an offset index a short task has none of).
    const dir = store.taskPath(row);
    const run = await runCompaction({ dir, toolOutputs: new ToolOutputStore(dir) }, options);
    return { kind: 'ran', run, ...(point && { point }) };
  }
  if (row.status === 'running') {
    store.repo.requestControl(uuid, 'compact');
    return { kind: 'requested', uuid };
  }
  const task = store.openForMaintenance(uuid);
  try {
    return { kind: 'ran', run: await runCompaction(task, options) };
  } finally {
    task.close();
  }
}

function pastPoint(store: ContextStore, row: TaskRow, request: CompactRequest): CompactionPoint {
  const seq = request.atSeq!;
  if (!request.dryRun)
    throw new CwbError('usage', '--at goes with --dry-run: a past point is only ever previewed');
  if (seq > row.total_messages)
    throw new CwbError(
      'bad_input',
      `--at ${seq}: task ${row.uuid} has ${row.total_messages} messages (#1–#${row.total_messages})`,
    );
  return pointAt(store.taskPath(row), seq);
}

export async function undoTaskCompaction(
  store: ContextStore,
  uuid: string,
  id: number,
): Promise<UndoResult> {
  const task = store.openForMaintenance(uuid);
  try {
    return await undoCompaction(task, id);
  } finally {
    task.close();
  }
}

export async function rewindTask(
  store: ContextStore,
  uuid: string,
  seq: number,
): Promise<RewindResult> {
  const task = store.openForMaintenance(uuid);
  try {
    return await rewindTo(task, seq);
  } finally {
    task.close();
  }
}

/** The model writes summaries when one is configured; otherwise (or offline) the extractive digest does, so compaction always works. */
export function summarizerFor(
  config: AppConfig,
  request: { offline?: boolean; env?: NodeJS.ProcessEnv },
): Summarizer {
  const settings = providerSettings(config.llm);
  if (request.offline || !(config.compaction.model ?? settings.model)) return extractiveSummarizer;
  const client = createLlmClient(config.llm, {
    secrets: secretValues(config),
    ...(request.env && { env: request.env }),
  });
  return llmSummarizer(
    {
      complete: (prompt, options) =>
        client.complete(prompt, {
          ...options,
          ...(options?.model ? {} : settings.model ? { model: settings.model } : {}),
        }),
    },
    { model: config.compaction.model },
  );
}

/** The window compaction plans for: the task's own, the registry's for its model, else a common default. */
export function contextWindowOf(
  row: TaskRow,
  config: AppConfig,
): { contextWindow: number; maxOutputTokens: number } {
  const known = row.model ? lookupModel(row.model) : undefined;
  const contextWindow =
    row.context_length ??
    known?.contextWindow ??
    providerSettings(config.llm).context_length ??
    FALLBACK_CONTEXT_WINDOW;
  return {
    contextWindow,
    maxOutputTokens: Math.min(known?.maxOutputTokens ?? 8192, contextWindow),
  };
}
