import type { ReactNode } from 'react';
import type { Fact } from './lost-facts';

/** `text` with every occurrence of a lost fact marked, longest facts first so they win overlaps. */
export function FactHighlight({ text, facts }: { text: string; facts: readonly Fact[] }) {
  if (facts.length === 0 || text.length === 0) return <>{text}</>;
  const needles = [...new Set(facts.map((f) => f.text))].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(needles.map(escapeRegExp).join('|'), 'g');
  const out: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(
      <mark key={m.index} className="cmp-lost">
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
