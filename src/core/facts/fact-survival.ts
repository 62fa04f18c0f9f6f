import { FACT_KINDS, SCORED_KINDS, type Fact, type FactKind, type KindScore } from './fact-types';
import { factScore } from './fact-score';

/**
 * Which facts of a compacted span survive in the context that replaced it. A fact is kept
 * when its text is still there, anywhere (a summary may name a path in another sentence);
 * this is what `--dry-run`, `cwb eval-compaction`, the API and the diff page report.
 */

export interface FactScore {
  byKind: Record<FactKind, KindScore>;
  /** The kinds the quality goal counts (paths, commands, error lines, numbers, identifiers). */
  salient: KindScore;
  /** What did not survive, the most important first. */
  lost: Fact[];
}

export function isKept(fact: Fact, text: string): boolean {
  // A fact clipped for length survives when its start does.
  const needle = fact.text.endsWith('…') ? fact.text.slice(0, -1) : fact.text;
  if (text.includes(needle)) return true;
  if (fact.kind !== 'error') return false;
  const lower = text.toLowerCase();
  return lower.includes(needle.toLowerCase());
}

export function scoreFacts(facts: readonly Fact[], afterText: string): FactScore {
  const byKind = Object.fromEntries(FACT_KINDS.map((k) => [k, { total: 0, kept: 0 }])) as Record<
    FactKind,
    KindScore
  >;
  const salient: KindScore = { total: 0, kept: 0 };
  const lost: Fact[] = [];
  for (const fact of facts) {
    const kept = isKept(fact, afterText);
    const score = byKind[fact.kind];
    score.total++;
    if (kept) score.kept++;
    if (SCORED_KINDS.includes(fact.kind)) {
      salient.total++;
      if (kept) salient.kept++;
    }
    if (!kept) lost.push(fact);
  }
  const scores = new Map(lost.map((f) => [f, factScore(f, '')]));
  lost.sort((a, b) => scores.get(b)! - scores.get(a)!);
  return { byKind, salient, lost };
}
