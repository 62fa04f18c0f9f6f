import { lazy, Suspense, useEffect } from 'react';
import { create } from 'zustand';
import { typingOrDialog } from '../../components/keys-overlay';
import type { ContextUsageSeries } from '../../../../shared/api/task-view-api';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { STICKY_TOP_PROPS } from './hold-at-top';
import { taskStrings } from './strings';
import { splitEstimate } from './usage-estimate';
import { useContextUsage } from './use-context-usage';

// uPlot is a sixth of the UI's code and only draws once the series is here, which the server
// sends after the first rows: loaded then, so compiling it never delays the timeline's rows.
const ChartCanvas = lazy(() =>
  import('./usage-chart-canvas').then((m) => ({ default: m.ChartCanvas })),
);

const COLLAPSED_KEY = 'cwb.chartCollapsed';

/**
 * Whether the chart is folded into its strip, remembered. Until the user chooses, a short
 * window starts folded so that messages show on the first screen.
 */
const useChartFold = create<{ collapsed: boolean; toggle(): void }>((set, get) => ({
  collapsed: readCollapsed(),
  toggle: () => {
    const collapsed = !get().collapsed;
    set({ collapsed });
    try {
      localStorage.setItem(COLLAPSED_KEY, collapsed ? '1' : '0');
    } catch {
      // storage unavailable: the choice lasts for this session
    }
  },
}));

function readCollapsed(): boolean {
  try {
    const saved = localStorage.getItem(COLLAPSED_KEY);
    if (saved !== null) return saved === '1';
  } catch {
    // fall through to the default
  }
  return window.innerHeight < 800;
}

/** Tokens in the model's context over the task, the threshold, and clickable compaction marks. */
export function UsageChart({ uuid, revision }: { uuid: string; revision: number }) {
  const t = useT(taskStrings);
  const f = useFormat();
  const state = useContextUsage(uuid, revision);
  const { collapsed, toggle } = useChartFold();
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key !== 'c' || e.ctrlKey || e.metaKey || e.altKey || typingOrDialog(e)) return;
      e.preventDefault();
      toggle();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [toggle]);
  const toggleButton = (
    <button
      type="button"
      className="tv-link tv-chart-toggle"
      aria-expanded={!collapsed}
      title={t('chartToggleHint')}
      onClick={toggle}
    >
      {collapsed ? t('chartShow') : t('chartHide')}
    </button>
  );
  if (collapsed) {
    const series = state.kind === 'ready' ? state.series : null;
    const last = series && series.tokens.length > 0 ? series.current : null;
    return (
      <section
        className="tv-chart-panel tv-chart-strip"
        aria-label={t('chartTitle')}
        {...STICKY_TOP_PROPS}
      >
        <h3>{t('chartTitle')}</h3>
        {series && last !== null && (
          <>
            <span className="tv-strip-bar" aria-hidden="true">
              <span
                style={{
                  width: `${Math.min(100, (100 * last) / Math.max(1, series.contextWindow))}%`,
                }}
              />
            </span>
            <span className="tv-muted">
              {t('chartStrip', {
                tokens: f.tokens(last),
                window: f.tokens(series.contextWindow),
                compactions: series.compactions.filter((c) => !c.undone).length,
              })}
            </span>
          </>
        )}
        {toggleButton}
      </section>
    );
  }
  return (
    <section className="tv-chart-panel" aria-label={t('chartTitle')}>
      <div className="tv-chart-head">
        <h3>{t('chartTitle')}</h3>
        {toggleButton}
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
