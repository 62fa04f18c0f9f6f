import type { UsageCost, UsageReport, UsageTokens } from '../../../../shared/api/usage-api';
import { formatUsd } from '../../../../shared/format-cost';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { usageStrings } from './strings';

export const tokenSum = (t: UsageTokens): number =>
  t.input + t.output + t.cache_read + t.cache_write;

/** Cache reads among the input side's tokens (null when there were none). */
export function cacheShare(t: UsageTokens): number | null {
  const input = t.input + t.cache_read + t.cache_write;
  return input > 0 ? t.cache_read / input : null;
}

/** Dollars, and the tokens without a price beside them: "unknown" alone, never $0. */
export function CostText({ cost }: { cost: Pick<UsageCost, 'usd' | 'unknown_tokens'> }) {
  const t = useT(usageStrings);
  const f = useFormat();
  if (cost.usd === 0 && cost.unknown_tokens > 0)
    return (
      <span className="usage-unknown" title={t('unknownHint')}>
        {t('unknown')}
      </span>
    );
  return (
    <>
      {formatUsd(cost.usd)}
      {cost.unknown_tokens > 0 && (
        <span className="usage-unknown" title={t('unknownHint')}>
          {' '}
          {t('unknownTokens', { count: f.tokens(cost.unknown_tokens) })}
        </span>
      )}
    </>
  );
}

/** The period's totals: cost, tasks, tokens, the cache's share and what it saved. */
export function UsageFigures({ report }: { report: UsageReport }) {
  const t = useT(usageStrings);
  const f = useFormat();
  const { total } = report;
  const share = cacheShare(total.tokens);
  return (
    <dl className="usage-figures">
      <div>
        <dt>{t('cost')}</dt>
        <dd data-testid="usage-total-cost">
          <CostText cost={total.cost} />
        </dd>
      </div>
      <div>
        <dt>{t('tasks')}</dt>
        <dd data-testid="usage-total-tasks">{f.number(total.tasks)}</dd>
      </div>
      <div>
        <dt>{t('tokens')}</dt>
        <dd data-testid="usage-total-tokens">{f.tokens(tokenSum(total.tokens))}</dd>
      </div>
      <div>
        <dt title={t('cacheShareHint')}>{t('cacheShare')}</dt>
        <dd data-testid="usage-cache-share">{share === null ? '—' : f.percent(share)}</dd>
      </div>
      <div>
        <dt title={t('savedHint')}>{t('saved')}</dt>
        <dd data-testid="usage-saved">{formatUsd(total.cost.saved_usd)}</dd>
      </div>
    </dl>
  );
}

/** Input, output, cache read and write as one bar of their shares, with the figures. */
export function TokenKinds({ tokens }: { tokens: UsageTokens }) {
  const t = useT(usageStrings);
  const f = useFormat();
  const all = tokenSum(tokens);
  const kinds = [
    { key: 'input', label: t('input'), n: tokens.input },
    { key: 'output', label: t('output'), n: tokens.output },
    { key: 'cache-read', label: t('cacheRead'), n: tokens.cache_read },
    { key: 'cache-write', label: t('cacheWrite'), n: tokens.cache_write },
  ];
  return (
    <section className="usage-section" aria-labelledby="usage-kinds">
      <h3 id="usage-kinds">{t('tokenKinds')}</h3>
      <div className="usage-kind-bar" aria-hidden="true">
        {all > 0 &&
          kinds.map((k) =>
            k.n > 0 ? (
              <span
                key={k.key}
                className={`usage-kind usage-kind-${k.key}`}
                style={{ flexGrow: k.n }}
              />
            ) : null,
          )}
      </div>
      <ul className="usage-kind-list">
        {kinds.map((k) => (
          <li key={k.key} data-kind={k.key}>
            <span className={`usage-swatch usage-kind-${k.key}`} aria-hidden="true" />
            <span>{k.label}</span>
            <span className="usage-num" data-testid={`usage-tokens-${k.key}`}>
              {f.tokens(k.n)}
            </span>
            <span className="usage-share">{all > 0 ? f.percent(k.n / all) : '—'}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
