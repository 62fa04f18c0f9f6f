import type { ContextUsageSeries } from '../../../../shared/api/task-view-api';

export interface EstimateSplit {
  /** Index of the first provider-reported point, or null when the provider reported none. */
  firstProvider: number | null;
  /** The series from the first provider figure on (null before it). */
  anchored: (number | null)[];
  /** The series up to and including the first provider figure (null after it), so the two join. */
  early: (number | null)[];
}

/**
 * Until a provider reports a figure, the host's estimate is the sum of the messages' own
 * tokens: it leaves out what every request carries besides them (system framing, tool
 * definitions), so it starts near zero and jumps at the first real figure. That stretch is
 * split off to be drawn and named as what it is. With no provider figure at all the whole
 * series is one consistent estimate and stays in one piece.
 */
export function splitEstimate(
  series: Pick<ContextUsageSeries, 'tokens' | 'sources'>,
): EstimateSplit {
  const first = series.sources.indexOf('provider');
  if (first < 0)
    return {
      firstProvider: null,
      anchored: [...series.tokens],
      early: series.tokens.map(() => null),
    };
  return {
    firstProvider: first,
    anchored: series.tokens.map((v, i) => (i >= first ? v : null)),
    early: series.tokens.map((v, i) => (i <= first && first > 0 ? v : null)),
  };
}
