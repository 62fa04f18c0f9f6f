import { estimateTokens } from '../tokens/estimate';
import type { Fact, FactKind } from '../facts/fact-types';
import { renderLedger } from '../facts/fact-ledger-text';
import { extractSpanFacts, FactSet, type SpanMessage } from '../facts/span-facts';
import { factScore } from '../facts/fact-score';
import { textFacts } from '../facts/text-facts';
import { commandOf, clip, firstLine, parseArgs, actionKind } from '../facts/tool-actions';

/**
 * The evidence an agent's own compaction dropped: the facts of the replaced span that its
 * summary does not state, ranked by what the agent is likely to need next, as many as fit a
 * token budget, in the fact ledger's format.
 *
 * The ranking follows what was measured on 62 real Claude Code compactions (issue 30): 74 %
 * of the facts the agent needed after a compaction were facts it had typed itself before it
 * (tool-call argument values and its own text), and such a fact was needed again 3.7× as
 * often as a fact of the span in general. Those come first, the most recently typed first;
 * the rest of the span's facts (errors, the user's words, paths tools printed) follow by
 * the ledger's own score.
 */

export interface DroppedEvidence {
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

const COMMAND_CHARS = 160;
/** Issue and PR numbers, commit hashes: references the agent types again. */
const REFERENCE = /(?<![\w/#])#\d{1,6}\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/g;

export function droppedEvidence(
  span: readonly SpanMessage[],
  summary: string,
  options: DroppedEvidenceOptions,
): DroppedEvidence {
  const typed = typedFacts(span);
  const seen = seenFacts(span);
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

/**
 * Typed facts rank above every other, newest first (mentions break ties); then the ledger's
 * own facts (errors, failing commands, the user's words, files written) by its score; then
 * names and paths the agent only saw in tool outputs, the most often and most recently
 * seen first.
 */
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

/** The best facts whose rendering fits the budget, in the span's order. */
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
 * What the agent typed in the span: the values of its tool calls' arguments and its own
 * text, as paths, names, numbers, URLs and references, plus the commands it ran. Recency is
 * the position of the last time it typed each (0..1).
 */
export function typedFacts(span: readonly SpanMessage[]): FactSet {
  const facts = new FactSet();
  const last = Math.max(1, span.length - 1);
  span.forEach(({ message }, i) => {
    if (message.role !== 'assistant') return;
    const at = i / last;
    if (message.content) addText(facts, message.content, at);
    for (const call of message.tool_calls ?? []) {
      const args = parseArgs(call.function.arguments);
      if (actionKind(call.function.name, args) === 'command') {
        const command = commandOf(args, call.function.arguments).trim();
        if (command) facts.add('command', clip(firstLine(command), COMMAND_CHARS), at);
      }
      for (const value of stringValues(args)) addText(facts, value, at);
    }
  });
  return facts;
}

/** Paths and names that tool outputs showed the agent (file contents, search hits, logs). */
export function seenFacts(span: readonly SpanMessage[]): FactSet {
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

function addText(facts: FactSet, text: string, at: number): void {
  const found = textFacts(text);
  const add = (kind: FactKind, items: readonly string[]): void => {
    for (const item of items) facts.add(kind, item, at);
  };
  add('path', found.paths);
  add('url', found.urls);
  add('number', found.numbers);
  add('identifier', found.identifiers);
  add(
    'identifier',
    [...text.matchAll(REFERENCE)].map((m) => m[0]),
  );
}

/** Every string inside a tool call's arguments (nested objects and lists included). */
function stringValues(value: unknown, out: string[] = [], depth = 0): string[] {
  if (typeof value === 'string') out.push(value);
  else if (depth < 6 && Array.isArray(value))
    for (const v of value) stringValues(v, out, depth + 1);
  else if (depth < 6 && typeof value === 'object' && value !== null)
    for (const v of Object.values(value)) stringValues(v, out, depth + 1);
  return out;
}
