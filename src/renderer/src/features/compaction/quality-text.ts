import type { CompactionDiff } from '../../../../shared/api/compaction-api';
import type { CompactionQualityInfo } from '../../../../shared/fact-kinds';
import type { Translate } from '../../i18n/use-t';
import { FACT_GROUP_KEYS } from './fact-kind-labels';
import {
  keptPercent,
  kindRows,
  percentOf,
  tokenBreakdown,
  type TokenBreakdown,
} from './quality-figures';
import type { CompactionStringKey } from './strings';

/** The sentences the compaction views write about a compaction's quality, in the UI's language. */

/** "saved 93 % of the span · kept 84/84 facts (100 %)". */
export function qualityLine(
  t: Translate<CompactionStringKey>,
  quality: CompactionQualityInfo,
): string {
  const { salient } = quality.facts;
  const saved = percentOf(quality.savedShare);
  if (salient.total === 0) return t('qualityNoFacts', { saved });
  const kept = { kept: salient.kept, total: salient.total, percent: keptPercent(salient) ?? 100 };
  return quality.savedShare < 0
    ? t('qualityGrew', { grown: -saved, ...kept })
    : t('qualitySpan', { saved, ...kept });
}

/** "paths 23/23 kept · commands 0/1 kept …", every kind the span had. */
export function kindsLine(
  t: Translate<CompactionStringKey>,
  quality: CompactionQualityInfo,
): string {
  return kindRows(quality)
    .map((r) => t('kindKept', { kind: t(FACT_GROUP_KEYS[r.kind]), kept: r.kept, total: r.total }))
    .join(' · ');
}

/**
 * The two sentences under the diff page's token bars: what the span was, what took its place
 * (the summary it added, the new content of messages it shortened) and how the rest adds up.
 */
export function breakdownText(
  t: Translate<CompactionStringKey>,
  tokens: (n: number) => string,
  diff: CompactionDiff,
  b: TokenBreakdown = tokenBreakdown(diff),
): string {
  const created = new Set(diff.record.created_seqs ?? []);
  const createdMessages = diff.after.messages.filter((m) => m.seq !== null && created.has(m.seq));
  const createdTokens = Math.min(
    b.replacementTokens,
    createdMessages.reduce((n, m) => n + m.tokens, 0),
  );
  const trimmedTokens = Math.max(0, b.replacementTokens - createdTokens);
  const added =
    b.added === 0
      ? null
      : b.added === 1 && createdMessages[0]?.kind === 'summary'
        ? t('whatSummary', { tokens: tokens(createdTokens) })
        : t('whatAdded', { added: b.added, tokens: tokens(createdTokens) });
  const trimmed =
    b.trimmed === 0
      ? null
      : t('whatTrimmed', { trimmed: b.trimmed, tokens: tokens(trimmedTokens) });
  const what =
    added && trimmed ? t('whatBoth', { added, trimmed }) : (added ?? trimmed ?? t('whatNothing'));
  const grew = b.replacementTokens > b.spanTokens;
  const span = t('breakdownSpan', {
    id: String(diff.record.id),
    count: b.spanMessages,
    spanTokens: tokens(b.spanTokens),
    replacement: tokens(b.replacementTokens),
    what,
    effect: grew
      ? t('effectGrew', { percent: -b.spanSaved })
      : t('effectSaved', { percent: b.spanSaved }),
  });
  const rest =
    b.restBefore === b.restAfter
      ? t('breakdownRest', {
          rest: tokens(b.restBefore),
          before: tokens(b.before),
          after: tokens(b.after),
        })
      : t('breakdownRestChanged', {
          restBefore: tokens(b.restBefore),
          restAfter: tokens(b.restAfter),
          before: tokens(b.before),
          after: tokens(b.after),
        });
  // Japanese sentences end in 。 and are not spaced apart.
  return `${span}${span.endsWith('。') ? '' : ' '}${rest}`;
}
