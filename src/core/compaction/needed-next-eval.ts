import type { AppConfig } from '../config/app-config';
import type { StrategyName } from '../config/strategy-names';
import {
  futureReferenceRecall,
  neededNext,
  reReadsAfter,
  type NeededFact,
  type ReReads,
} from '../facts/needed-next';
import { ToolOutputStore } from '../store/tool-output-store';
import { runCompaction } from './compaction-engine';
import type { CompactionPoint } from './compaction-points';
import { extractiveSummarizer } from './extractive-digest';
import { buildPipeline } from './pipeline';
import { contextText } from './summary-ledger';
import { viewTokens, type ViewEntry } from './view';

/**
 * Scores a new context at a compaction point by what the agent needed next (FRR): the
 * agent's own (its summary) or one a candidate pipeline builds offline from the same prefix
 * (a dry run with the extractive digest: no model, nothing written).
 */
export interface NeededNextScore {
  /** Candidate label (`tool-output-trim+summarize`), or `agent` for the agent's own context. */
  label: string;
  applied: boolean;
  reason?: string;
  /** Seed-estimate tokens of the prefix and of the new context. */
  tokensBefore: number;
  tokensAfter: number;
  needed: number;
  kept: number;
  frr: number | null;
  /** Needed facts the new context dropped (up to 50), in the order the agent typed them. */
  lost: NeededFact[];
}

const LOST_LISTED = 50;

/** What the agent needed next at a point: computed once, scored against every new context. */
export function neededAt(point: CompactionPoint): NeededFact[] {
  return neededNext(
    point.prefix.map((e) => e.message),
    point.after,
  );
}

export function reReadsAt(point: CompactionPoint): ReReads {
  return reReadsAfter(
    point.prefix.map((e) => e.message),
    point.after,
  );
}

export function scoreContext(
  label: string,
  needed: readonly NeededFact[],
  prefix: readonly ViewEntry[],
  context: readonly ViewEntry[],
  applied = true,
): NeededNextScore {
  const recall = futureReferenceRecall(needed, contextText(context));
  return {
    label,
    applied,
    tokensBefore: viewTokens(prefix),
    tokensAfter: viewTokens(context),
    needed: recall.needed,
    kept: recall.kept,
    frr: recall.frr,
    lost: recall.lost.slice(0, LOST_LISTED),
  };
}

/** The agent's own new context at a point it compacted (undefined at a what-if point). */
export function scoreAgentContext(
  point: CompactionPoint,
  needed: readonly NeededFact[],
): NeededNextScore | undefined {
  if (!point.agentContext) return undefined;
  return scoreContext('agent', needed, point.prefix, point.agentContext);
}

/** A candidate run offline on the point's prefix and scored by what the agent needed next. */
export async function scoreCandidateAt(
  dir: string,
  config: AppConfig,
  window: { contextWindow: number; maxOutputTokens: number },
  point: CompactionPoint,
  candidate: readonly StrategyName[],
  needed: readonly NeededFact[],
): Promise<NeededNextScore> {
  const label = candidate.join('+');
  const run = await runCompaction(
    { dir, toolOutputs: new ToolOutputStore(dir) },
    {
      steps: buildPipeline(config, window.contextWindow, candidate),
      reason: 'manual',
      dryRun: true,
      measureQuality: false,
      summarizer: extractiveSummarizer,
      ...window,
      initialView: point.prefix,
    },
  );
  const applied = run.steps.some((s) => s.applied);
  const score = scoreContext(label, needed, point.prefix, run.view, applied);
  if (!applied) score.reason = run.steps.map((s) => `${s.strategy}: ${s.reason ?? ''}`).join('; ');
  return score;
}
