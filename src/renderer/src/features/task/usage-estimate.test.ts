import { describe, expect, it } from 'vitest';
import { splitEstimate } from './usage-estimate';

describe('the estimate before the first provider figure', () => {
  it('is split off, joining the anchored line at the first provider point', () => {
    const split = splitEstimate({
      tokens: [120, 250, 11_800, 12_100, 12_400],
      sources: ['estimate', 'estimate', 'provider', 'estimate', 'provider'],
    });
    expect(split.firstProvider).toBe(2);
    expect(split.early).toEqual([120, 250, 11_800, null, null]);
    expect(split.anchored).toEqual([null, null, 11_800, 12_100, 12_400]);
  });

  it('is the whole series when no provider reported, and nothing when the first point is one', () => {
    const none = splitEstimate({ tokens: [5, 9], sources: ['estimate', 'estimate'] });
    expect(none).toEqual({ firstProvider: null, anchored: [5, 9], early: [null, null] });
    const first = splitEstimate({ tokens: [900, 950], sources: ['provider', 'estimate'] });
    expect(first.early).toEqual([null, null]);
    expect(first.anchored).toEqual([900, 950]);
  });
});
