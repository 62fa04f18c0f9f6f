import type { CurrentMessage } from '../../shared/task-types';
import { estimateTokens } from '../tokens/estimate';
import type { FactKind } from './fact-types';
import { rankedLedger } from './fact-ledger';
import { isKept } from './fact-survival';
import { splitLedger } from './fact-ledger-text';
import { factsOfText, typedFacts, type NeededFact, type NeededKind } from './needed-next';
import { extractSpanFacts, userWords, type FactSet, type SpanMessage } from './span-facts';

/**
 * The evidence a summary dropped, ranked by what the agent is likely to need next. Beside
 * the span's facts (span-facts.ts: files, commands, errors…) every name and value the span
 * shows counts as a candidate — the identifiers of a file the agent read, a branch a
 * command printed — because the agent goes on to type them: measured on real Claude Code
 * compactions (docs/benchmarks.md, "needed next"), most of what it typed after a
 * compaction had been typed by it before, and the rest had been shown to it.
 */

const LEDGER_KIND: Record<NeededKind, FactKind> = {
  path: 'path',
  identifier: 'identifier',
  number: 'number',
  url: 'url',
  reference: 'identifier',
};

/**
 * Adds to `facts` every name and value of the span, marking what the agent typed itself
 * (its call arguments and its text) and what it was only shown (tool outputs, the user).
 */
export function addEvidence(facts: FactSet, span: readonly SpanMessage[]): void {
  const last = Math.max(1, span.length - 1);
  for (let i = 0; i < span.length; i++) {
    const { message: m, original } = span[i]!;
    const at = i / last;
    const typed = m.role === 'assistant';
    const shown = original !== undefined && m.role === 'tool' ? { ...m, content: original } : m;
    for (const found of foundIn(shown).values()) {
      const fact = facts.add(LEDGER_KIND[found.kind], found.text, at);
      if (!fact) continue;
      if (typed) {
        fact.typed = true;
        delete fact.seen;
      } else if (!fact.typed && fact.mentions === 1) fact.seen = true;
    }
  }
}

function foundIn(m: CurrentMessage): Map<string, NeededFact> {
  if (m.role === 'assistant') return typedFacts(m);
  if (m.role === 'user') return factsOfText(userWords(splitLedger(m.content ?? '').body));
  if (m.role === 'tool') return factsOfText(m.content ?? '');
  return new Map();
}

export interface DroppedEvidence {
  /** The ranked facts as a fact ledger (empty when the summary states them all). */
  text: string;
  tokens: number;
  /** Facts listed / candidates the summary did not state. */
  listed: number;
  dropped: number;
}

/**
 * The evidence of `span` that `summary` does not state, ranked by what predicts the agent's
 * later use and cut to `maxTokens`: what the agent typed itself first, files it wrote, then
 * the newest and most mentioned names it was shown. For a hook that repairs another agent's
 * compaction (Claude Code's SessionStart `compact`) and for our own summaries' ledgers.
 */
export function rankDroppedEvidence(
  span: readonly CurrentMessage[],
  summary: string,
  maxTokens: number,
  options: { note?: string } = {},
): DroppedEvidence {
  const spanMessages = span.map((message) => ({ message }));
  const facts = extractSpanFacts(spanMessages);
  addEvidence(facts, spanMessages);
  const dropped = facts.list().filter((f) => !isKept(f, summary));
  const ranked = rankedLedger(dropped, maxTokens, options);
  return {
    text: ranked.text,
    tokens: ranked.text ? estimateTokens(ranked.text) : 0,
    listed: ranked.shown.length,
    dropped: dropped.length,
  };
}
