import { describe, expect, it } from 'vitest';
import type { NeededNextInfo } from '../../../../shared/needed-next-info';
import { neededPlotInputs, sameSpace } from './needed-next-figures';

const info = (over: Partial<NeededNextInfo> = {}): NeededNextInfo => ({
  needed: 20,
  kept: 5,
  frr: 0.25,
  lost: [],
  tokensBefore: 100_000,
  tokensAfter: 4_000,
  reReads: { count: 0, tokens: 0, costUsd: null, examples: [] },
  notes: [],
  ...over,
});
const labels = { agent: 'Claude Code’s summary', pipeline: 'workbench pipeline' };

describe('the needed-next plot', () => {
  it('places the agent’s context and the pipeline’s by the share of the prefix saved and FRR', () => {
    const points = neededPlotInputs(
      info({
        agent: 'claude-code',
        pipeline: { label: 'p', applied: true, kept: 19, frr: 0.95, tokensAfter: 9_000 },
      }),
      labels,
    );
    expect(points).toEqual([
      { key: labels.agent, label: labels.agent, x: 96, y: 25, isDefault: false },
      { key: labels.pipeline, label: labels.pipeline, x: 91, y: 95, isDefault: true },
    ]);
  });

  it('plots nothing without an FRR, and leaves out a pipeline that did not apply', () => {
    expect(neededPlotInputs(info({ needed: 0, kept: 0, frr: null }), labels)).toEqual([]);
    const notApplied = info({
      pipeline: { label: 'p', applied: false, kept: 0, frr: 0, tokensAfter: 100_000 },
    });
    expect(neededPlotInputs(notApplied, labels).map((p) => p.key)).toEqual([labels.agent]);
  });

  it('says "in the same space" only when the pipeline’s context is no more than a tenth larger', () => {
    const withOurs = (tokensAfter: number) =>
      info({ pipeline: { label: 'p', applied: true, kept: 19, frr: 0.95, tokensAfter } });
    expect(sameSpace(withOurs(4_400))).toBe(true);
    expect(sameSpace(withOurs(4_500))).toBe(false);
    expect(sameSpace(info())).toBe(false);
  });
});
