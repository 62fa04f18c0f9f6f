import type { ReactNode } from 'react';
import type { FactKind, LostFact } from '../../../../shared/fact-kinds';
import { useT } from '../../i18n/use-t';
import { FACT_TAG_KEYS } from './fact-kind-labels';
import { compactionStrings } from './strings';

interface Needles {
  pattern: RegExp;
  kinds: Map<string, FactKind>;
}

/** One pattern per list of facts (every message card of a page shares the diff's list). */
const cache = new WeakMap<readonly LostFact[], Needles | null>();

/**
 * The text a fact is found by: a fact clipped for length ("…" at the end) survives, and is
 * marked, where its start is.
 */
export function factNeedle(fact: LostFact): string {
  return fact.text.endsWith('…') ? fact.text.slice(0, -1) : fact.text;
}

function needlesOf(facts: readonly LostFact[]): Needles | null {
  let needles = cache.get(facts);
  if (needles !== undefined) return needles;
  const kinds = new Map<string, FactKind>();
  for (const fact of facts) {
    const needle = factNeedle(fact);
    if (needle.length >= 2 && !kinds.has(needle)) kinds.set(needle, fact.kind);
  }
  // Longest first, so a path wins over the file name inside it.
  const sorted = [...kinds.keys()].sort((a, b) => b.length - a.length);
  needles =
    sorted.length === 0
      ? null
      : { pattern: new RegExp(sorted.map(escapeRegExp).join('|'), 'g'), kinds };
  cache.set(facts, needles);
  return needles;
}

/** `text` with every occurrence of a lost fact marked (its kind in the mark's title). */
export function FactHighlight({ text, facts }: { text: string; facts: readonly LostFact[] }) {
  const t = useT(compactionStrings);
  const needles = facts.length > 0 && text.length > 0 ? needlesOf(facts) : null;
  if (!needles) return <>{text}</>;
  const out: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(needles.pattern)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    const kind = needles.kinds.get(m[0]);
    out.push(
      <mark
        key={m.index}
        className={`cmp-lost${kind ? ` cmp-lost-${kind}` : ''}`}
        title={kind ? t(FACT_TAG_KEYS[kind]) : undefined}
      >
        {m[0]}
      </mark>,
    );
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return <>{out}</>;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
