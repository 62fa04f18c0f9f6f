import { estimateTokens } from '../tokens/estimate';
import type { Fact } from './fact-types';
import { renderLedger, splitLedger } from './fact-ledger-text';
import { extractSpanFacts, type SpanMessage } from './span-facts';
import { isKept } from './fact-survival';
import { factScore } from './fact-score';
import { addEvidence } from './dropped-evidence';
export { factScore } from './fact-score';
export { LEDGER_DEFAULTS, ledgerTokens, type LedgerBudget } from './fact-ledger-budget';

/**
 * The fact ledger of a summary: the span's facts, ranked by what matters for carrying on,
 * as many as fit a token budget. Every summary carries one (the extractive digest builds
 * it; an LLM summary gets the facts it dropped appended), so compaction keeps the evidence
 * and not only the conclusions.
 */

export const RECALL_NOTE = (tool: string): string =>
  `\`${tool}\` searches (pattern) or reads (seq range) every earlier message.`;

export interface RankedLedger {
  text: string;
  shown: Fact[];
  omitted: number;
}

/**
 * The best facts that fit `maxTokens`, rendered in the order the span mentioned them. Facts
 * are chosen by score; one that does not fit is skipped for smaller ones behind it.
 */
export function rankedLedger(
  facts: readonly Fact[],
  maxTokens: number,
  options: { laterText?: string; note?: string } = {},
): RankedLedger {
  if (facts.length === 0) return { text: '', shown: [], omitted: 0 };
  const later = options.laterText ?? '';
  const order = new Map(facts.map((f, i) => [f, i]));
  // Scored once: a score looks for the fact in the later messages, too slow for a comparator.
  const scores = new Map(facts.map((f) => [f, factScore(f, later)]));
  const ranked = [...facts].sort((a, b) => scores.get(b)! - scores.get(a)!);
  const overhead = estimateTokens(renderLedger([], { note: options.note ?? '' })) + 40;
  let used = overhead;
  const chosen: Fact[] = [];
  let covered = 0;
  // A fact inside a stronger one (the path in a command, the name in an error line) is
  // stated by it already: listing it again would spend the budget twice.
  let stated = '';
  for (const fact of ranked) {
    if (stated.includes(fact.text)) {
      covered++;
      continue;
    }
    const cost = estimateTokens(fact.text) + (fact.detail ? 3 : 0) + 1;
    if (used + cost > maxTokens) continue;
    used += cost;
    chosen.push(fact);
    stated += `\n${fact.text}`;
  }
  // A fact chosen before the stronger one that states it is dropped again, its room unused.
  covered += dropStated(chosen);
  chosen.sort((a, b) => order.get(a)! - order.get(b)!);
  let text = renderLedger(chosen, { ...(options.note && { note: options.note }) });
  // The estimate of the parts can be off by a few tokens: drop the weakest until it fits.
  while (chosen.length > 0 && estimateTokens(text) > maxTokens) {
    const weakest = chosen.reduce((w, f) => (scores.get(f)! < scores.get(w)! ? f : w));
    chosen.splice(chosen.indexOf(weakest), 1);
    text = renderLedger(chosen, { ...(options.note && { note: options.note }) });
  }
  return { text, shown: chosen, omitted: facts.length - chosen.length - covered };
}

/** Removes facts another chosen one states (the path inside a command); returns how many. */
function dropStated(chosen: Fact[]): number {
  let removed = 0;
  const byLength = [...chosen].sort((a, b) => a.text.length - b.text.length);
  for (const fact of byLength) {
    const stated = chosen.some((o) => o !== fact && o.text.includes(fact.text));
    if (!stated) continue;
    chosen.splice(chosen.indexOf(fact), 1);
    removed++;
  }
  return removed;
}

/**
 * An LLM summary with the facts it dropped appended as a ledger (no second call): each fact
 * of the span is looked for in the summary's own text; what is missing goes into the ledger.
 * A ledger the model copied from an earlier summary is merged, so there is only ever one.
 */
export function withDroppedFacts(
  summary: string,
  span: readonly SpanMessage[],
  options: { maxTokens: number; laterText?: string; note?: string; alsoStated?: string },
): string {
  const { body, ledger } = splitLedger(summary);
  const facts = extractSpanFacts(span);
  addEvidence(facts, span);
  for (const fact of ledger) facts.merge(fact, 1);
  // What stands beside the summary in the context (retain-summary's <retain> list) states
  // facts too; the ledger does not repeat them.
  const stated = options.alsoStated ? `${body}\n${options.alsoStated}` : body;
  // What the kept messages after the span state is in the context already.
  const later = options.laterText ?? '';
  const dropped = facts.list().filter((f) => !isKept(f, stated) && !(later && isKept(f, later)));
  if (dropped.length === 0) return body;
  const { text } = rankedLedger(dropped, options.maxTokens, options);
  return text ? `${body}\n\n${text}` : body;
}
