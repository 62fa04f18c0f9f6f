import { lazy, Suspense } from 'react';
import type { ContextUsageSeries } from '../../../../shared/api/task-view-api';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { taskStrings } from './strings';
import { splitEstimate } from './usage-estimate';
import { useContextUsage } from './use-context-usage';

// uPlot is a sixth of the UI's code and only draws once the series is here, which the server
// sends after the first rows: loaded then, so compiling it never delays the timeline's rows.
const ChartCanvas = lazy(() =>
  import('./usage-chart-canvas').then((m) => ({ default: m.ChartCanvas })),
);

/** Tokens in the model's context over the task, the threshold, and clickable compaction marks. */
export function UsageChart({ uuid, revision }: { uuid: string; revision: number }) {
  const t = useT(taskStrings);
  const state = useContextUsage(uuid, revision);
  return (
    <section className="tv-chart-panel" aria-label={t('chartTitle')}>
      <div className="tv-chart-head">
        <h3>{t('chartTitle')}</h3>
        {state.kind === 'ready' && state.series.seqs.length > 0 && (
          <ChartLegend series={state.series} />
        )}
      </div>
      {state.kind === 'loading' && (
        <p className="tv-muted tv-chart-placeholder">{t('chartLoading')}</p>
      )}
      {state.kind === 'error' && <p className="tv-error-line">{state.message}</p>}
      {state.kind === 'ready' &&
        (state.series.seqs.length === 0 ? (
          <p className="tv-muted tv-chart-placeholder">{t('chartEmpty')}</p>
        ) : (
          <Suspense fallback={<p className="tv-muted tv-chart-placeholder">{t('chartLoading')}</p>}>
            <ChartCanvas uuid={uuid} series={state.series} />
          </Suspense>
        ))}
    </section>
  );
}

function ChartLegend({ series }: { series: ContextUsageSeries }) {
  const t = useT(taskStrings);
  const f = useFormat();
  const split = splitEstimate(series);
  return (
    <div className="tv-chart-legend">
      {split.firstProvider === null ? (
        <span className="tv-legend-line" title={t('chartEstimateOnlyHint')}>
          {t('chartEstimateOnly')}
        </span>
      ) : (
        <>
          {split.firstProvider > 0 && (
            <span className="tv-legend-early" title={t('chartEarlyHint')}>
              {t('chartEarly')}
            </span>
          )}
          <span className="tv-legend-line" title={t('chartAnchoredHint')}>
            {t('chartEstimate')}
          </span>
          <span className="tv-legend-dot">{t('chartProvider')}</span>
        </>
      )}
      <span className="tv-legend-threshold">
        {t('chartThreshold', {
          tokens: f.tokens(series.thresholdTokens),
          ratio: f.percent(series.thresholdRatio),
          window: f.tokens(series.contextWindow),
        })}
      </span>
      {series.bucketSize > 1 && (
        <span className="tv-muted">{t('chartSampled', { n: series.bucketSize })}</span>
      )}
    </div>
  );
}
