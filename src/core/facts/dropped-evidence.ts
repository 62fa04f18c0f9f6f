import type { CurrentMessage } from '../../shared/task-types';
import { estimateTokens } from '../tokens/estimate';
import type { Fact, FactKind } from './fact-types';
import { renderLedger, splitLedger } from './fact-ledger-text';
import { factScore } from './fact-score';
import { factsOfText, typedFacts, type NeededFact, type NeededKind } from './needed-next';
import { extractSpanFacts, FactSet, userWords, type SpanMessage } from './span-facts';
import { textFacts } from './text-facts';
import { actionKind, clip, commandOf, firstLine, parseArgs } from './tool-actions';

/**
 * The evidence a summary dropped, ranked by what the agent is likely to need next. Beside
 * the span's facts (span-facts.ts: files, commands, errors…) every name and value the span
 * shows counts as a candidate — the identifiers of a file the agent read, a branch a
 * command printed — because the agent goes on to type them: measured on 62 real Claude Code
 * compactions (issue 30), 74 % of the facts the agent needed after a compaction were facts
 * it had typed itself before it (tool-call argument values and its own text), and such a
 * fact was needed again 3.7× as often as a fact of the span in general; the rest had been
 * shown to it. What "typed" means is FRR's own definition (needed-next.ts: typedFacts).
 *
 * Two users: our own summaries' ledgers (fact-ledger.ts, through addEvidence and its score)
 * and the hook that repairs another agent's compaction (droppedEvidence).
 */

const LEDGER_KIND: Record<NeededKind, FactKind> = {
  path: 'path',
  identifier: 'identifier',
  number: 'number',
  url: 'url',
  reference: 'identifier',
};
const COMMAND_CHARS = 160;

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
  /** The chosen facts as a fact ledger ('' when the summary states them all). */
  text: string;
  shown: number;
  /** Facts of the span the summary does not state. */
  dropped: number;
  tokens: number;
}

export interface DroppedEvidenceOptions {
  maxTokens: number;
  /** The first line of the text (where it comes from, how to recall the rest). */
  note: string;
}

/**
 * The facts of `span` that `summary` does not state, as many as fit `maxTokens`, in the fact
 * ledger's format: what the agent typed first, the most recently typed first; then the
 * ledger's own facts (errors, failing commands, the user's words, files written) by its
 * score; then names and paths the agent only saw in tool outputs, the most often and most
 * recently seen first. For a hook that repairs an agent's own compaction (Claude Code's and
 * Codex's SessionStart `compact`).
 */
export function droppedEvidence(
  span: readonly SpanMessage[],
  summary: string,
  options: DroppedEvidenceOptions,
): DroppedEvidence {
  const typed = typedSpanFacts(span);
  const seen = seenSpanFacts(span);
  const all = extractSpanFacts(span);
  for (const fact of typed.list()) all.merge(fact, fact.recency);
  for (const fact of seen.list()) all.merge(fact, fact.recency);
  const typedRecency = new Map(typed.list().map((f) => [key(f), f.recency]));
  const seenByKey = new Map(seen.list().map((f) => [key(f), f]));
  const dropped = all.list().filter((f) => !summary.includes(f.text));
  const scores = new Map(dropped.map((f) => [f, rankOf(f, typedRecency, seenByKey)]));
  const ranked = [...dropped].sort((a, b) => scores.get(b)! - scores.get(a)!);
  const chosen = fitBudget(ranked, options);
  const text = chosen.length > 0 ? renderLedger(chosen, { note: options.note }) : '';
  return { text, shown: chosen.length, dropped: dropped.length, tokens: estimateTokens(text) };
}

/** Typed first, newest first (mentions break ties); the ledger's facts; then what was only seen. */
function rankOf(f: Fact, typed: Map<string, number>, seen: Map<string, Fact>): number {
  const k = key(f);
  const typedAt = typed.get(k);
  if (typedAt !== undefined) return 1000 + 100 * typedAt + Math.min(5, f.mentions);
  const onlySeen = seen.get(k);
  if (onlySeen && onlySeen.mentions === f.mentions) {
    return 5 * onlySeen.recency + Math.min(5, onlySeen.mentions);
  }
  return 100 + factScore(f, '');
}

function key(f: Fact): string {
  return `${f.kind}\u0000${f.text}`;
}

/** The best facts whose rendering fits the budget, best first. */
function fitBudget(ranked: readonly Fact[], options: DroppedEvidenceOptions): Fact[] {
  const order = new Map(ranked.map((f, i) => [f, i]));
  let used = estimateTokens(renderLedger([], { note: options.note })) + 40;
  const chosen: Fact[] = [];
  // A fact inside one already chosen (the path in a command) is stated by it.
  let stated = '';
  for (const fact of ranked) {
    if (stated.includes(fact.text)) continue;
    const cost = estimateTokens(fact.text) + (fact.detail ? 3 : 0) + 2;
    if (used + cost > options.maxTokens) continue;
    used += cost;
    chosen.push(fact);
    stated += `\n${fact.text}`;
  }
  let text = renderLedger(chosen, { note: options.note });
  // The estimate of the parts can be off: drop the lowest-ranked until the whole fits.
  while (chosen.length > 0 && estimateTokens(text) > options.maxTokens) {
    const weakest = chosen.reduce((w, f) => (order.get(f)! > order.get(w)! ? f : w));
    chosen.splice(chosen.indexOf(weakest), 1);
    text = renderLedger(chosen, { note: options.note });
  }
  return chosen;
}

/**
 * What the agent typed in the span (typedFacts of each of its messages) and the commands it
 * ran; recency is the position of the last time it typed each (0..1).
 */
export function typedSpanFacts(span: readonly SpanMessage[]): FactSet {
  const facts = new FactSet();
  const last = Math.max(1, span.length - 1);
  span.forEach(({ message }, i) => {
    if (message.role !== 'assistant') return;
    const at = i / last;
    for (const call of message.tool_calls ?? []) {
      const args = parseArgs(call.function.arguments);
      if (actionKind(call.function.name, args) !== 'command') continue;
      const command = commandOf(args, call.function.arguments).trim();
      if (command) facts.add('command', clip(firstLine(command), COMMAND_CHARS), at);
    }
    for (const found of typedFacts(message).values()) {
      facts.add(LEDGER_KIND[found.kind], found.text, at);
    }
  });
  return facts;
}

/** Paths and names that tool outputs showed the agent (file contents, search hits, logs). */
export function seenSpanFacts(span: readonly SpanMessage[]): FactSet {
  const facts = new FactSet();
  const last = Math.max(1, span.length - 1);
  span.forEach(({ message }, i) => {
    if (message.role !== 'tool' || !message.content) return;
    const found = textFacts(message.content);
    for (const p of found.paths) facts.add('path', p, i / last);
    for (const name of found.identifiers) facts.add('identifier', name, i / last);
  });
  return facts;
}
