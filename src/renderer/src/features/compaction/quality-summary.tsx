import type { CompactionQualityInfo } from '../../../../shared/fact-kinds';
import { useT } from '../../i18n/use-t';
import { FACT_GROUP_KEYS } from './fact-kind-labels';
import { kindRows } from './quality-figures';
import { kindsLine, qualityLine } from './quality-text';
import { LostFactLine } from './lost-fact-line';
import { compactionStrings } from './strings';

/** Lost facts named under a step; the diff page lists them all. */
const LOST_SHOWN = 5;

/** Kept/total per kind as small tags (the full ones muted, the lossy ones marked). */
export function KindScores({
  quality,
  short = false,
}: {
  quality: CompactionQualityInfo;
  /** "paths 13/13" where a header already says kept/total. */
  short?: boolean;
}) {
  const t = useT(compactionStrings);
  const rows = kindRows(quality);
  if (rows.length === 0) return null;
  return (
    <ul className="cmp-kind-list">
      {rows.map((r) => (
        <li
          key={r.kind}
          className={`cmp-kind-chip cmp-kind-${r.kind}${r.lost === 0 ? ' cmp-chip-full' : ''}`}
        >
          {t(short ? 'kindShort' : 'kindKept', {
            kind: t(FACT_GROUP_KEYS[r.kind]),
            kept: r.kept,
            total: r.total,
          })}
        </li>
      ))}
    </ul>
  );
}

/**
 * One step's (or a whole run's) quality in a line, with the breakdown per kind and the most
 * important lost facts on expand (and per kind on hover).
 */
export function QualitySummary({
  quality,
  label,
}: {
  quality: CompactionQualityInfo;
  label?: string;
}) {
  const t = useT(compactionStrings);
  const lost = (quality.facts.lost ?? []).slice(0, LOST_SHOWN);
  const more = quality.facts.lostCount - lost.length;
  const good = quality.facts.salient.kept === quality.facts.salient.total;
  return (
    <details className="cmp-quality">
      <summary title={kindsLine(t, quality)}>
        {label && <strong>{label} · </strong>}
        <span className={good ? 'cmp-quality-good' : 'cmp-quality-lossy'}>
          {qualityLine(t, quality)}
        </span>
      </summary>
      <div className="cmp-quality-body">
        <p className="cmp-note">
          {t('qualityByKind')} · {t('qualityFactsAre')}
        </p>
        <KindScores quality={quality} />
        {lost.length > 0 && (
          <>
            <p className="cmp-note">{t('qualityLost')}</p>
            <ul className="cmp-lost-mini">
              {lost.map((f, i) => (
                <li key={i}>
                  <LostFactLine fact={f} />
                </li>
              ))}
              {more > 0 && <li className="cmp-more">{t('moreLost', { count: more })}</li>}
            </ul>
          </>
        )}
      </div>
    </details>
  );
}
