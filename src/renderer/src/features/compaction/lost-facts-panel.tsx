import { useState } from 'react';
import type { CompactionQualityInfo, FactKind } from '../../../../shared/fact-kinds';
import { useT } from '../../i18n/use-t';
import { FACT_GROUP_KEYS } from './fact-kind-labels';
import { allFacts, keptPercent, kindRows, type KindRow } from './quality-figures';
import { LostFactLine } from './lost-fact-line';
import { compactionStrings } from './strings';

/** Past this many the rest waits behind "show more": a compaction can lose hundreds of facts. */
const SHOWN = 12;

/**
 * The facts of the replaced span that did not survive, as core measured them: kept/total per
 * kind (a kind is a filter), the salient score, then the lost facts most important first.
 */
export function LostFactsPanel({ quality }: { quality: CompactionQualityInfo }) {
  const t = useT(compactionStrings);
  const [kind, setKind] = useState<FactKind | null>(null);
  const [all, setAll] = useState(false);
  const { facts } = quality;
  const rows = kindRows(quality);
  const total = allFacts(quality);
  const lost = (facts.lost ?? []).map((fact, i) => ({ fact, rank: i + 1 }));
  const filtered = kind ? lost.filter((l) => l.fact.kind === kind) : lost;
  const shown = all ? filtered : filtered.slice(0, SHOWN);
  const salient = keptPercent(facts.salient);
  const chip = (row: KindRow) => (
    <button
      key={row.kind}
      type="button"
      className={`cmp-kind-chip cmp-kind-${row.kind}${row.lost === 0 ? ' cmp-chip-full' : ''}`}
      aria-pressed={kind === row.kind}
      disabled={row.lost === 0}
      title={row.lost > 0 ? t('filterKind', { kind: t(FACT_GROUP_KEYS[row.kind]) }) : undefined}
      onClick={() => {
        setKind(kind === row.kind ? null : row.kind);
        setAll(false);
      }}
    >
      {t('kindKept', { kind: t(FACT_GROUP_KEYS[row.kind]), kept: row.kept, total: row.total })}
    </button>
  );
  return (
    <section className="cmp-panel cmp-lost-panel" aria-label={t('lostTitle')}>
      <h2>
        {t('lostTitle')}
        {total.total > 0 && facts.lostCount > 0 && (
          <span className="cmp-count">
            {t('lostOf', { lost: facts.lostCount, total: total.total })}
          </span>
        )}
      </h2>
      <p className="cmp-sub">{t('lostSub', { count: quality.spanMessages })}</p>
      {total.total === 0 ? (
        <p className="cmp-all-kept">{t('noFacts')}</p>
      ) : (
        <>
          {salient !== null && (
            <p className="cmp-salient">
              <strong>
                {t('salientKept', {
                  kept: facts.salient.kept,
                  total: facts.salient.total,
                  percent: salient,
                })}
              </strong>
              <span className="cmp-meter" aria-hidden="true">
                <span style={{ width: `${(facts.salient.kept / facts.salient.total) * 100}%` }} />
              </span>
              <span className="cmp-note">{t('salientHint')}</span>
            </p>
          )}
          <div className="cmp-kind-chips" role="group" aria-label={t('qualityByKind')}>
            {rows.filter((r) => r.scored).map(chip)}
            {rows.some((r) => !r.scored) && (
              <span className="cmp-chips-unscored">
                <span className="cmp-chips-note">{t('notScored')}</span>
                {rows.filter((r) => !r.scored).map(chip)}
              </span>
            )}
            {kind && (
              <button type="button" className="cmp-link-button" onClick={() => setKind(null)}>
                {t('showAllKinds')}
              </button>
            )}
          </div>
          {facts.lostCount === 0 ? (
            <p className="cmp-all-kept">{t('noLost', { total: total.total })}</p>
          ) : (
            <ol className="cmp-lost-list">
              {shown.map(({ fact, rank }) => (
                <li key={rank} className="cmp-lost-item" data-kind={fact.kind}>
                  <span className="cmp-rank">{rank}</span>
                  <LostFactLine fact={fact} />
                </li>
              ))}
            </ol>
          )}
          {filtered.length > SHOWN && (
            <button type="button" className="cmp-link-button" onClick={() => setAll(!all)}>
              {all ? t('showLess') : t('showAllFacts', { count: filtered.length - SHOWN })}
            </button>
          )}
          {facts.lostCount > lost.length && (
            <p className="cmp-note">
              {t('lostCapped', { shown: lost.length, count: facts.lostCount })}
            </p>
          )}
        </>
      )}
    </section>
  );
}
