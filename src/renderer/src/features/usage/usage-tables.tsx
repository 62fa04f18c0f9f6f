import type { UsageReport } from '../../../../shared/api/usage-api';
import { agentLabel } from '../../../../shared/agents';
import { formatUsd } from '../../../../shared/format-cost';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { routeHash } from '../../router/route';
import { CostText, tokenSum } from './usage-figures';
import { usageStrings } from './strings';

/** Each day, week or month of the period: tasks, tokens by kind and cost. */
export function UsageRows({
  report,
  labels,
  title,
}: {
  report: UsageReport;
  labels: string[];
  title: string;
}) {
  const t = useT(usageStrings);
  const f = useFormat();
  return (
    <section className="usage-section" aria-labelledby="usage-rows">
      <h3 id="usage-rows">{title}</h3>
      <div className="usage-table-wrap">
        <table className="usage-table" data-testid="usage-rows">
          <thead>
            <tr>
              <th scope="col">{t('colPeriod')}</th>
              <th scope="col">{t('colTasks')}</th>
              <th scope="col">{t('input')}</th>
              <th scope="col">{t('output')}</th>
              <th scope="col">{t('cacheRead')}</th>
              <th scope="col">{t('cacheWrite')}</th>
              <th scope="col">{t('colCost')}</th>
            </tr>
          </thead>
          <tbody>
            {[...report.rows].reverse().map((row, i) => (
              <tr key={row.key} data-key={row.key}>
                <th scope="row">{labels[report.rows.length - 1 - i]}</th>
                <td>{f.number(row.tasks)}</td>
                <td>{f.tokens(row.tokens.input)}</td>
                <td>{f.tokens(row.tokens.output)}</td>
                <td>{f.tokens(row.tokens.cache_read)}</td>
                <td>{f.tokens(row.tokens.cache_write)}</td>
                <td>
                  <CostText cost={row.cost} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** The period's most expensive tasks, each a link to the task. */
export function TopSessions({ report }: { report: UsageReport }) {
  const t = useT(usageStrings);
  const f = useFormat();
  if (report.top.length === 0) return null;
  return (
    <section className="usage-section" aria-labelledby="usage-top">
      <h3 id="usage-top">{t('topTitle')}</h3>
      <div className="usage-table-wrap">
        <table className="usage-table usage-top" data-testid="usage-top">
          <thead>
            <tr>
              <th scope="col">{t('colTask')}</th>
              <th scope="col">{t('colAgent')}</th>
              <th scope="col">{t('colModel')}</th>
              <th scope="col">{t('colTokens')}</th>
              <th scope="col">{t('colCost')}</th>
            </tr>
          </thead>
          <tbody>
            {report.top.map((s) => {
              const title = s.title?.trim() || t('untitled');
              return (
                <tr key={s.uuid} data-uuid={s.uuid}>
                  <th scope="row" className="usage-top-title">
                    <a
                      href={routeHash({ page: 'task', uuid: s.uuid, tab: 'timeline' })}
                      title={title}
                    >
                      {title}
                    </a>
                  </th>
                  <td>{agentLabel(s.agent, t('ownAgent'))}</td>
                  <td className="usage-model" title={s.model ?? undefined}>
                    {s.model ?? t('noModel')}
                  </td>
                  <td>{f.tokens(tokenSum(s.tokens))}</td>
                  <td>
                    {s.usd === null ? (
                      <span className="usage-unknown" title={t('unknownHint')}>
                        {t('unknown')}
                      </span>
                    ) : (
                      formatUsd(s.usd)
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
