import type { CurrentMessage } from '../../shared/task-types';
import { textFacts } from './text-facts';
import { actionKind, argPaths, commandOf, firstLine, parseArgs } from './tool-actions';
import { estimateTokens } from '../tokens/estimate';

/**
 * "Needed next": future-reference recall (FRR), the headline of compaction quality. At a
 * compaction point, the facts that count are the file paths, identifiers, numbers with
 * units, URLs and references (issue/PR numbers, commit hashes, branch names) the agent
 * itself typed after the point — its tool-call argument values and its own text, never tool
 * outputs — that first appeared in what was compacted. FRR is the share of them present
 * verbatim in the new context. No model judges it and it is not circular: the agent's own
 * later behaviour decides what mattered.
 */

export const NEEDED_KINDS = ['path', 'identifier', 'number', 'url', 'reference'] as const;
export type NeededKind = (typeof NEEDED_KINDS)[number];

export interface NeededFact {
  kind: NeededKind;
  text: string;
}

export interface Recall {
  /** Distinct facts the agent typed after the point that the compacted span held. */
  needed: number;
  kept: number;
  /** kept / needed; null when the agent needed nothing of the span. */
  frr: number | null;
  /** Needed facts not in the new context, in the order the agent typed them. */
  lost: NeededFact[];
}

/** Messages the model was shown (reasoning is the agent's private scratch, not its text). */
function isReasoning(m: CurrentMessage): boolean {
  return m.role === 'assistant' && m.name === 'reasoning';
}

/** `#123` (an issue or PR), a commit hash (7–40 hex with a digit and a letter). */
const ISSUE_REF = /(?<![\w&/])#\d{1,6}\b/g;
const COMMIT = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/g;
/** The branch a git or gh command names: `git checkout -b x`, `git push origin x`, `--head x`. */
const GIT_BRANCH =
  /\bgit\s+(?:checkout|switch|branch|push|merge|rebase|worktree\s+add|log|diff)\b([^\n;&|]*)|--(?:head|base)[= ](\S+)/g;
/** `owner/topic-name` in prose: how branches are named (`soph/list-command`, `fix/retry-412`). */
const BRANCH_IN_TEXT = /(?<![\w./-])[a-z][\w.]*\/[\w.]*[-\d][\w.-]*[\w](?![\w/])/g;
const BRANCH_WORD = /^(?=.*[a-z])[\w.-]+(?:\/[\w.-]+)+$|^(?=.*[-_])[a-z][\w.-]{2,}$/i;

/** References a text names: issue and PR numbers, commit hashes, branch names of git commands. */
export function findReferences(text: string): string[] {
  const out = [...text.matchAll(ISSUE_REF)].map((m) => m[0]);
  for (const m of text.matchAll(COMMIT)) out.push(m[0]);
  for (const m of text.matchAll(BRANCH_IN_TEXT)) out.push(m[0]);
  for (const m of text.matchAll(GIT_BRANCH)) {
    const words = (m[1] ?? m[2] ?? '').trim().split(/\s+/);
    for (const w of words) {
      const word = w.replace(/^["']|["']$/g, '');
      const fresh = !out.includes(word);
      if (fresh && !word.startsWith('-') && word !== 'origin' && BRANCH_WORD.test(word))
        out.push(word);
    }
  }
  return out;
}

/** Every needed-kind fact of a text, in order, without repeats of the same text. */
export function factsOfText(
  text: string,
  into: Map<string, NeededFact> = new Map(),
): Map<string, NeededFact> {
  if (!text) return into;
  const found = textFacts(text);
  const add = (kind: NeededKind, value: string): void => {
    const t = value.trim();
    if (t.length >= 3 && !into.has(t)) into.set(t, { kind, text: t });
  };
  for (const u of found.urls) add('url', u);
  for (const p of found.paths) add('path', p);
  for (const r of findReferences(text)) add('reference', r);
  for (const n of found.numbers) add('number', n);
  for (const i of found.identifiers) add('identifier', i);
  return into;
}

/** The string values of a tool call's arguments, however deeply nested. */
function argStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) argStrings(v, out);
  else if (value && typeof value === 'object')
    for (const v of Object.values(value as Record<string, unknown>)) argStrings(v, out);
  return out;
}

/**
 * What the agent typed in one message: its text and its tool-call argument values (a path
 * argument counts whole even where the text finder would not call it a path).
 */
export function typedFacts(
  message: CurrentMessage,
  into: Map<string, NeededFact> = new Map(),
): Map<string, NeededFact> {
  if (message.role !== 'assistant' || isReasoning(message)) return into;
  factsOfText(message.content ?? '', into);
  for (const call of message.tool_calls ?? []) {
    const args = parseArgs(call.function.arguments);
    for (const p of argPaths(args)) {
      const t = p.trim();
      if (t.length >= 3 && !into.has(t)) into.set(t, { kind: 'path', text: t });
    }
    const values = args ? argStrings(args) : [call.function.arguments];
    for (const v of values) factsOfText(v, into);
  }
  return into;
}

/** Everything a message holds as text (content and call arguments), for "was it there". */
export function messageTextOf(m: CurrentMessage): string {
  const calls = (m.tool_calls ?? []).map((c) => `${c.function.name} ${c.function.arguments}`);
  return calls.length ? [m.content ?? '', ...calls].join('\n') : (m.content ?? '');
}

/**
 * The facts the agent typed in `after` that the `compacted` span held (verbatim), first
 * typed first. Reasoning messages count on neither side.
 */
export function neededNext(
  compacted: readonly CurrentMessage[],
  after: readonly CurrentMessage[],
): NeededFact[] {
  const typed = new Map<string, NeededFact>();
  for (const m of after) typedFacts(m, typed);
  if (typed.size === 0) return [];
  const span = compacted
    .filter((m) => !isReasoning(m))
    .map(messageTextOf)
    .join('\n');
  return [...typed.values()].filter((f) => span.includes(f.text));
}

/** The share of `needed` present verbatim in `newContext` (the whole new context as text). */
export function futureReferenceRecall(needed: readonly NeededFact[], newContext: string): Recall {
  const lost = needed.filter((f) => !newContext.includes(f.text));
  const kept = needed.length - lost.length;
  return { needed: needed.length, kept, frr: needed.length ? kept / needed.length : null, lost };
}

export interface ReReads {
  /** Calls after the point that read a file or ran a command whose output the span held. */
  count: number;
  /** Tokens of their outputs (what the agent paid again). */
  tokens: number;
  /** Up to 20 of them, as `Read path` or the command line. */
  examples: string[];
}

/** What identifies a read or a command: its kind and its target (the path, the command line). */
function callKey(name: string, rawArgs: string): string | undefined {
  const args = parseArgs(rawArgs);
  const kind = actionKind(name, args);
  if (kind === 'read') {
    const p = argPaths(args)[0];
    return p ? `read ${p}` : undefined;
  }
  if (kind === 'command' || kind === 'search') {
    const line = kind === 'command' ? firstLine(commandOf(args, rawArgs)) : rawArgs;
    return line ? `${kind} ${line.trim()}` : undefined;
  }
  return undefined;
}

/**
 * Re-reads after a compaction: files read again and commands (or searches) run again whose
 * output was in the compacted span — the price an agent paid for what its summary dropped.
 */
export function reReadsAfter(
  compacted: readonly CurrentMessage[],
  after: readonly CurrentMessage[],
): ReReads {
  const seen = new Set<string>();
  for (const m of compacted)
    for (const c of m.tool_calls ?? []) {
      const key = callKey(c.function.name, c.function.arguments);
      if (key) seen.add(key);
    }
  const results = new Map<string, CurrentMessage>();
  for (const m of after) if (m.role === 'tool' && m.tool_call_id) results.set(m.tool_call_id, m);
  const out: ReReads = { count: 0, tokens: 0, examples: [] };
  const counted = new Set<string>();
  for (const m of after)
    for (const c of m.tool_calls ?? []) {
      const key = callKey(c.function.name, c.function.arguments);
      if (!key || !seen.has(key)) continue;
      out.count++;
      out.tokens += estimateTokens(results.get(c.id)?.content ?? '');
      if (!counted.has(key) && out.examples.length < 20) out.examples.push(key);
      counted.add(key);
    }
  return out;
}
