import type { NeededNextInfo } from '../../../../shared/needed-next-info';
import type { PlotInput } from './strategy-plot';

/** The goal of issue 30 on the plot's axes: ≥ 90 % of the prefix saved (≤ 10 % kept), FRR ≥ 95 %. */
export const NEEDED_GOAL = { x: 90, y: 95 } as const;

/**
 * The points of the "needed next" plot: the compaction's own new context and, for an agent's
 * own compaction, the workbench's pipeline on the same prefix; x is the share of the prefix
 * saved, y the FRR, both in percent; keyed by their labels (the plot shows a key as its
 * point's tooltip). Nothing to plot without an FRR.
 */
export function neededPlotInputs(
  info: NeededNextInfo,
  labels: { agent: string; pipeline: string },
): PlotInput[] {
  if (info.frr === null || info.tokensBefore <= 0) return [];
  const saved = (after: number): number => 100 * (1 - after / info.tokensBefore);
  const points: PlotInput[] = [
    {
      key: labels.agent,
      label: labels.agent,
      x: saved(info.tokensAfter),
      y: 100 * info.frr,
      isDefault: false,
    },
  ];
  const ours = info.pipeline;
  if (ours?.applied && ours.frr !== null)
    points.push({
      key: labels.pipeline,
      label: labels.pipeline,
      x: saved(ours.tokensAfter),
      y: 100 * ours.frr,
      isDefault: true,
    });
  return points;
}

/**
 * The pipeline's new context is about the size of the agent's (within a tenth, or smaller):
 * then "in the same space" is true; otherwise both sizes are said.
 */
export function sameSpace(info: NeededNextInfo): boolean {
  const ours = info.pipeline;
  return ours !== undefined && ours.tokensAfter <= info.tokensAfter * 1.1;
}
