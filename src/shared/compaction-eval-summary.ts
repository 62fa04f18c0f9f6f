import {
  FACT_KINDS,
  type CompactionQualityInfo,
  type FactKind,
  type KindScore,
} from './fact-kinds';

/**
 * Compaction candidates scored over many tasks (`cwb eval-compaction`, the bench): one
 * figure per candidate. Shares are medians over tasks, so one huge transcript does not
 * outweigh many ordinary ones; the pooled counts are there to show how many facts a
 * median stands on.
 */

/** One candidate on one task: the fields of an evaluation point the summary reads. */
export interface ScoredPoint {
  label: string;
  isDefault: boolean;
  applied: boolean;
  quality?: CompactionQualityInfo;
}

export interface KeptSummary {
  /** Facts over all the tasks the candidate applied to, and how many survived. */
  total: number;
  kept: number;
  /** Median per-task share kept, over the tasks whose span had any; null when none had. */
  medianShare: number | null;
  /** The tasks that median is over. */
  tasks: number;
}

export interface CandidateSummary {
  label: string;
  isDefault: boolean;
  /** Tasks it ran on, and those where it changed the context. */
  tasks: number;
  applied: number;
  /** Share of the replaced span's tokens saved, over the tasks it applied to (null: none). */
  medianSaved: number | null;
  minSaved: number | null;
  salient: KeptSummary;
  byKind: Record<FactKind, KeptSummary>;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * A span without a fact of some kind says nothing about how well that kind is kept, so it
 * is left out of the median rather than counted as 100 %.
 */
function keptSummary(scores: readonly KindScore[]): KeptSummary {
  const withFacts = scores.filter((s) => s.total > 0);
  return {
    total: scores.reduce((n, s) => n + s.total, 0),
    kept: scores.reduce((n, s) => n + s.kept, 0),
    medianShare: median(withFacts.map((s) => s.kept / s.total)),
    tasks: withFacts.length,
  };
}

/** One candidate's points, one per task. */
export function summarizeCandidate(points: readonly ScoredPoint[]): CandidateSummary {
  const first = points[0];
  const qualities = points.flatMap((p) => (p.applied && p.quality ? [p.quality] : []));
  const saved = qualities.map((q) => q.savedShare);
  return {
    label: first?.label ?? '',
    isDefault: first?.isDefault ?? false,
    tasks: points.length,
    applied: points.filter((p) => p.applied).length,
    medianSaved: median(saved),
    minSaved: saved.length ? Math.min(...saved) : null,
    salient: keptSummary(qualities.map((q) => q.facts.salient)),
    byKind: Object.fromEntries(
      FACT_KINDS.map((k) => [k, keptSummary(qualities.map((q) => q.facts.byKind[k]))]),
    ) as Record<FactKind, KeptSummary>,
  };
}

/** Every task's points grouped by candidate, candidates in the order they first appear. */
export function summarizeCandidates(
  pointsByTask: readonly (readonly ScoredPoint[])[],
): CandidateSummary[] {
  const byLabel = new Map<string, ScoredPoint[]>();
  for (const points of pointsByTask) {
    for (const point of points) {
      const list = byLabel.get(point.label) ?? [];
      list.push(point);
      byLabel.set(point.label, list);
    }
  }
  return [...byLabel.values()].map(summarizeCandidate);
}
