import { useMemo } from 'react';
import type { UsageReport } from '../../../../shared/api/usage-api';
import { agentLabel } from '../../../../shared/agents';
import { formatUsd } from '../../../../shared/format-cost';
import { StatePanel } from '../../components/state-panel';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import type { UsageRouteParams } from '../../router/route';
import { navigate } from '../../router/use-route';
import { CostChart, PART_COLORS } from './cost-chart';
import { periodLabel } from './period-label';
import { OTHER, stackParts } from './stack-parts';
import { usageStrings } from './strings';
import { UsageControls } from './usage-controls';
import { TokenKinds, UsageFigures } from './usage-figures';
import { usageRoute, usageView, type UsageView } from './usage-period';
import { TopSessions, UsageRows } from './usage-tables';
import { useUsageReport } from './use-usage-report';
import './usage.css';

const BY_WORD = { day: 'chartDay', week: 'chartWeek', month: 'chartMonth' } as const;

/**
 * What the tasks cost over time (issue 33): the period's totals, cost per day, week or month
 * stacked by model or agent, tokens by kind, the rows, and the most expensive tasks. One
 * usageReport call; its figures add up to the tasks' own costs (docs/search-and-usage.md).
 */
export function UsagePage({ params }: { params: UsageRouteParams }) {
  const t = useT(usageStrings);
  const view = usageView(params);
  const { state, reload } = useUsageReport(view);
  const go = (next: UsageView): void => navigate({ page: 'usage', ...usageRoute(next) });
  const report =
    state.kind === 'ready' ? state.report : state.kind === 'loading' ? state.previous : null;
  return (
    <section className="panel usage-panel" aria-labelledby="usage-heading">
      <div className="panel-head usage-head">
        <h2 id="usage-heading">{t('heading')}</h2>
        <UsageControls view={view} onChange={go} />
      </div>
      {state.kind === 'error' ? (
        <StatePanel tone="error" title={t('loadError')}>
          <p className="state-detail">{state.message}</p>
          <button type="button" onClick={reload}>
            {t('retry')}
          </button>
        </StatePanel>
      ) : !report ? (
        <StatePanel tone="loading" title={t('loading')} />
      ) : report.total.tasks === 0 ? (
        <StatePanel tone="empty" title={t('emptyTitle')}>
          <p>{t('emptyBody')}</p>
        </StatePanel>
      ) : (
        <UsageBody report={report} view={view} busy={state.kind === 'loading'} />
      )}
    </section>
  );
}

function UsageBody({
  report,
  view,
  busy,
}: {
  report: UsageReport;
  view: UsageView;
  busy: boolean;
}) {
  const t = useT(usageStrings);
  const f = useFormat();
  // The report's own grouping: while the next one loads, the previous is drawn as it was.
  const by = report.by === 'week' || report.by === 'month' ? report.by : 'day';
  const stack = useMemo(() => stackParts(report.rows), [report]);
  const labels = useMemo(
    () => report.rows.map((r) => periodLabel(r.key, by, f.language, (day) => t('weekOf', { day }))),
    // t follows the language, as f does.
    [report, by, f.language],
  );
  const partLabels = useMemo(
    () =>
      stack.parts.map((p) =>
        p.key === OTHER
          ? t('other')
          : view.split === 'agent'
            ? agentLabel(p.key, t('ownAgent'))
            : p.key || t('noModel'),
      ),
    [stack, view.split, f.language],
  );
  const byWord = t(BY_WORD[by]);
  return (
    <div className="usage-body" aria-busy={busy}>
      <UsageFigures report={report} />
      <section className="usage-section" aria-labelledby="usage-chart">
        <h3 id="usage-chart">{t('chartTitle', { by: byWord })}</h3>
        <ul className="usage-legend">
          {stack.parts.map((p, i) => (
            <li key={p.key}>
              <span
                className="usage-swatch"
                style={{ background: PART_COLORS[i % PART_COLORS.length] }}
                aria-hidden="true"
              />
              <span className="usage-legend-name" title={partLabels[i]}>
                {partLabels[i]}
              </span>
              <span className="usage-num">{formatUsd(p.total)}</span>
            </li>
          ))}
        </ul>
        <CostChart
          stack={stack}
          labels={labels}
          partLabels={partLabels}
          label={t('chartTitle', { by: byWord })}
        />
      </section>
      <TokenKinds tokens={report.total.tokens} />
      <UsageRows report={report} labels={labels} title={t('rowsTitle', { by: byWord })} />
      <TopSessions report={report} />
      <p className="usage-prices">{t('prices', { version: report.prices })}</p>
    </div>
  );
}
