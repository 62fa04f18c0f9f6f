import { useState } from 'react';
import type { DiffSide } from '../../../../shared/api/compaction-api';
import { useT } from '../../i18n/use-t';
import type { AlignedRow } from './align-contexts';
import type { LostFact } from '../../../../shared/fact-kinds';
import { MessageCard } from './message-card';
import { compactionStrings } from './strings';
import { WordDiff } from './word-diff';

/**
 * The whole context before → after, message by message: removed ones with lost facts
 * marked, added ones, and changed ones word-diffed. Runs of unchanged messages fold into
 * one line unless the reader asks for all of them.
 */
export function ContextDiff({
  rows,
  before,
  after,
  facts,
}: {
  rows: readonly AlignedRow[];
  before: DiffSide;
  after: DiffSide;
  facts: readonly LostFact[];
}) {
  const t = useT(compactionStrings);
  const [all, setAll] = useState(false);
  const items: ({ fold: number; key: string } | { row: AlignedRow; key: string })[] = [];
  rows.forEach((row, i) => {
    const last = items.at(-1);
    if (row.type === 'same' && !all) {
      if (last && 'fold' in last) last.fold++;
      else items.push({ fold: 1, key: `fold-${i}` });
    } else items.push({ row, key: `row-${i}` });
  });
  return (
    <section className="cmp-panel cmp-context" aria-label={t('contextTitle')}>
      <div className="cmp-panel-head">
        <div>
          <h2>{t('contextTitle')}</h2>
          <p className="cmp-sub">
            {t('contextSub', {
              before: before.total,
              after: after.total,
              tokensBefore: before.tokens,
              tokensAfter: after.tokens,
            })}
          </p>
        </div>
        <div className="cmp-toggle" role="group">
          <button type="button" aria-pressed={!all} onClick={() => setAll(false)}>
            {t('onlyChanges')}
          </button>
          <button type="button" aria-pressed={all} onClick={() => setAll(true)}>
            {t('allMessages')}
          </button>
        </div>
      </div>
      {(before.messages.length < before.total || after.messages.length < after.total) && (
        <p className="cmp-note">
          {t('partial', {
            shown: Math.max(before.messages.length, after.messages.length),
            total: Math.max(before.total, after.total),
          })}
        </p>
      )}
      <div className="cmp-rows">
        {items.map((item) => {
          if ('fold' in item)
            return (
              <p key={item.key} className="cmp-fold">
                {t('unchangedRun', { count: item.fold })}
              </p>
            );
          const { row } = item;
          switch (row.type) {
            case 'same':
              return <MessageCard key={item.key} message={row.after} collapseAt={240} />;
            case 'removed':
              return (
                <MessageCard
                  key={item.key}
                  message={row.before}
                  facts={facts}
                  tone="removed"
                  tag={t('removedTag')}
                  collapseAt={240}
                />
              );
            case 'added':
              return (
                <MessageCard key={item.key} message={row.after} tone="added" tag={t('addedTag')} />
              );
            case 'changed':
              return (
                <MessageCard
                  key={item.key}
                  message={row.after}
                  tone="changed"
                  tag={t('changedTag')}
                  body={<WordDiff before={row.before.content} after={row.after.content} />}
                />
              );
          }
        })}
      </div>
    </section>
  );
}
