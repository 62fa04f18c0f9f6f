import type { LostFact } from '../../../../shared/fact-kinds';
import { useT } from '../../i18n/use-t';
import { FACT_TAG_KEYS } from './fact-kind-labels';
import { compactionStrings } from './strings';

/** One lost fact as the lists show it: its kind, its text (whole on hover), its detail. */
export function LostFactLine({ fact }: { fact: LostFact }) {
  const t = useT(compactionStrings);
  return (
    <>
      <span className={`cmp-fact-tag cmp-kind-${fact.kind}`}>{t(FACT_TAG_KEYS[fact.kind])}</span>
      <span className="cmp-lost-text" title={fact.text}>
        {fact.text}
      </span>
      {fact.detail && <span className="cmp-lost-detail">{fact.detail}</span>}
    </>
  );
}
