import { useState } from 'react';
import type { Fact, FactKind } from './lost-facts';
import { useT } from '../../i18n/use-t';
import { compactionStrings, type CompactionStringKey } from './strings';

const KINDS: readonly { kind: FactKind; label: CompactionStringKey }[] = [
  { kind: 'error', label: 'factError' },
  { kind: 'path', label: 'factPath' },
  { kind: 'identifier', label: 'factIdentifier' },
  { kind: 'number', label: 'factNumber' },
];
/** Past this many per kind the rest waits behind "show all": a summary can drop hundreds of names. */
const SHOWN_PER_KIND = 24;
const SHOWN_ERRORS = 6;

/** The facts that did not survive the compaction, grouped by kind. */
export function LostFactsPanel({ facts }: { facts: readonly Fact[] }) {
  const t = useT(compactionStrings);
  const [all, setAll] = useState(false);
  const hidden = KINDS.reduce(
    (n, { kind }) => n + Math.max(0, facts.filter((f) => f.kind === kind).length - limit(kind)),
    0,
  );
  return (
    <section className="cmp-panel cmp-lost-panel" aria-label={t('lostTitle')}>
      <h2>
        {t('lostTitle')} <span className="cmp-count">{facts.length}</span>
      </h2>
      <p className="cmp-sub">{t('lostSub')}</p>
      {facts.length === 0 && <p className="cmp-empty">{t('noLost')}</p>}
      {KINDS.map(({ kind, label }) => {
        const of = facts.filter((f) => f.kind === kind);
        if (of.length === 0) return null;
        return (
          <div key={kind} className={`cmp-fact-group cmp-fact-${kind}`}>
            <h3>
              {t(label)} <span className="cmp-count">{of.length}</span>
            </h3>
            <ul>
              {(all ? of : of.slice(0, limit(kind))).map((f) => (
                <li key={f.text}>
                  <mark className="cmp-lost">{f.text}</mark>
                </li>
              ))}
              {!all && of.length > limit(kind) && (
                <li className="cmp-more">+{of.length - limit(kind)}</li>
              )}
            </ul>
          </div>
        );
      })}
      {hidden > 0 && (
        <button type="button" className="cmp-link-button" onClick={() => setAll(!all)}>
          {all ? t('showLess') : t('showAllFacts', { count: hidden })}
        </button>
      )}
    </section>
  );
}

function limit(kind: FactKind): number {
  return kind === 'error' ? SHOWN_ERRORS : SHOWN_PER_KIND;
}
