import type { CompactionDiff } from '../../../../shared/api/compaction-api';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { breakdownBars, tokenBreakdown } from './quality-figures';
import { breakdownText } from './quality-text';
import { compactionStrings } from './strings';

/**
 * Where a compaction's headline figures come from: the whole context before is the part it
 * left alone plus the span it took out or shortened; after, that same part plus what took
 * the span's place. Two bars on one scale and one sentence, so "74,670 → 3,500" and the
 * summary's own 1,421 tokens read as parts of one sum.
 */
export function TokenBreakdownView({ diff }: { diff: CompactionDiff }) {
  const t = useT(compactionStrings);
  const f = useFormat();
  const b = tokenBreakdown(diff);
  const bars = breakdownBars(b);
  const pct = (share: number): string => `${Math.max(0, share * 100)}%`;
  return (
    <div className="cmp-breakdown" aria-label={t('breakdownTitle')} role="group">
      <div className="cmp-bars">
        <span className="cmp-bar-label">{t('barBefore')}</span>
        <span className="cmp-bar" aria-hidden="true">
          <span className="cmp-bar-rest" style={{ width: pct(bars.before.rest) }} />
          <span className="cmp-bar-span" style={{ width: pct(bars.before.span) }} />
        </span>
        <span className="cmp-bar-total">{f.tokens(b.before)}</span>
        <span className="cmp-bar-label">{t('barAfter')}</span>
        <span className="cmp-bar" aria-hidden="true">
          <span className="cmp-bar-rest" style={{ width: pct(bars.after.rest) }} />
          <span className="cmp-bar-new" style={{ width: pct(bars.after.replacement) }} />
        </span>
        <span className="cmp-bar-total">{f.tokens(b.after)}</span>
      </div>
      <p className="cmp-legend">
        <span className="cmp-key cmp-key-rest">
          {t('legendRest', { tokens: f.tokens(b.restBefore) })}
        </span>
        <span className="cmp-key cmp-key-span">
          {t('legendSpan', { tokens: f.tokens(b.spanTokens), count: b.spanMessages })}
        </span>
        <span className="cmp-key cmp-key-new">
          {t('legendReplacement', { tokens: f.tokens(b.replacementTokens) })}
        </span>
      </p>
      <p className="cmp-breakdown-text">{breakdownText(t, f.tokens, diff, b)}</p>
    </div>
  );
}
