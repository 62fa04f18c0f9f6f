import type { CompactionEvalPoint } from '../../shared/api/compaction-api';
import type { AppConfig } from '../config/app-config';
import { STRATEGY_NAMES, type StrategyName } from '../config/strategy-names';
import { CwbError } from '../errors';
import type { ContextStore } from '../store/context-store';
import { ToolOutputStore } from '../store/tool-output-store';
import { runCompaction } from './compaction-engine';
import { extractiveSummarizer } from './extractive-digest';
import { buildPipeline } from './pipeline';
import { contextAroundRecord } from './compaction-diff';
import { readView } from './read-view';
import { contextWindowOf } from './task-compaction';

/**
 * Scores compaction strategies on a user's own tasks: each candidate (one strategy, or a
 * pipeline of several) runs as an offline dry run — the extractive digest writes summaries,
 * nothing is written — and is measured on the span it replaced (tokens saved, facts kept).
 * `cwb eval-compaction`, the compaction page's plot and the bench share it.
 */

/** A candidate: the strategies it runs, in order. */
export type Candidate = readonly StrategyName[];

/** One candidate scored on a task (the API's type: the CLI, the UI and the bench share it). */
export type EvalPoint = CompactionEvalPoint;

export function candidateLabel(candidate: Candidate): string {
  return candidate.join('+');
}

/** Every strategy alone, then the configured pipeline (when it has more than one step). */
export function defaultCandidates(config: AppConfig): Candidate[] {
  const singles = STRATEGY_NAMES.map((name) => [name] as Candidate);
  const pipeline = config.compaction.pipeline;
  return pipeline.length > 1 ? [...singles, pipeline] : singles;
}

/** `summarize`, or `tool-output-trim+summarize`: a candidate as the CLI spells it. */
export function parseCandidate(text: string): Candidate {
  const names = text
    .split('+')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw new CwbError('bad_input', `empty strategy in "${text}"`);
  for (const name of names) {
    if (!(STRATEGY_NAMES as readonly string[]).includes(name)) {
      throw new CwbError(
        'bad_input',
        `unknown compaction strategy "${name}" in "${text}" (use ${STRATEGY_NAMES.join(', ')}; join a pipeline with +)`,
      );
    }
  }
  return names as StrategyName[];
}

/** The candidates run on one task, in order; a task that is running is read, never written. */
export async function evaluateTask(
  store: ContextStore,
  config: AppConfig,
  uuid: string,
  candidates: readonly Candidate[] = defaultCandidates(config),
  options: { signal?: AbortSignal; beforeRecord?: number } = {},
): Promise<EvalPoint[]> {
  const { signal, beforeRecord } = options;
  const row = store.requireTask(uuid);
  const dir = store.taskPath(row);
  // Read once for every candidate; a past context is rebuilt from the records, as the diff
  // page rebuilds it.
  const initialView =
    beforeRecord === undefined ? readView(dir).view : contextAroundRecord(dir, beforeRecord).before;
  const window = contextWindowOf(row, config);
  const target = { dir, toolOutputs: new ToolOutputStore(dir) };
  const defaultLabel = candidateLabel(config.compaction.pipeline);
  const points: EvalPoint[] = [];
  for (const candidate of candidates) {
    if (signal?.aborted) break;
    const run = await runCompaction(target, {
      steps: buildPipeline(config, window.contextWindow, candidate),
      reason: 'manual',
      dryRun: true,
      summarizer: extractiveSummarizer,
      ...window,
      ...(signal && { signal }),
      initialView,
    });
    const applied = run.steps.some((s) => s.applied);
    const label = candidateLabel(candidate);
    points.push({
      label,
      strategies: [...candidate],
      isDefault: label === defaultLabel,
      applied,
      ...(!applied && {
        reason: run.steps.map((s) => `${s.strategy}: ${s.reason ?? ''}`).join('; '),
      }),
      ...(run.quality && { quality: run.quality }),
      tokensBefore: run.tokensBefore,
      tokensAfter: run.tokensAfter,
    });
  }
  return points;
}
