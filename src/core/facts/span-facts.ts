import type { CurrentMessage, MessageKind } from '../../shared/task-types';
import type { Fact, FactKind } from './fact-types';
import { splitLedger } from './fact-ledger-text';
import {
  actionKind,
  argPaths,
  clip,
  commandOf,
  exitStatus,
  fencedCommand,
  isReaderCommand,
  firstLine,
  parseArgs,
  patchPaths,
  patchText,
  shellPatch,
  textActionKind,
} from './tool-actions';
import {
  findErrorLines,
  findNumbers,
  findUrls,
  headAndTail,
  proseOf,
  textFacts,
} from './text-facts';

/** One message of a span: what the model saw, and what kind of message the store says it is. */
export interface SpanMessage {
  message: CurrentMessage;
  kind?: MessageKind;
  /** The stored text of a message shown shortened (a trimmed tool output): where its names are. */
  original?: string;
}

const INSTRUCTION_CHARS = 300;
/** A message before the request this long is set-up (a demonstration), not the task's own. */
const SET_UP_CHARS = 2000;
const COMMAND_CHARS = 160;
/** Where a command's output reports numbers (test counts, timings, sizes): its last lines. */
const OUTPUT_TAIL_LINES = 15;

/**
 * Ordered, de-duplicated facts of a span. Keyed by kind, then text: a joined `kind+text` key
 * was a new string to build and hash on every add, the hook's costliest line on a long span.
 */
export class FactSet {
  private readonly byKind = new Map<FactKind, Map<string, Fact>>();
  private readonly order: Fact[] = [];

  add(kind: FactKind, text: string, at: number, extra?: Partial<Fact>): Fact | undefined {
    const value = text.trim();
    if (value.length < 2) return undefined;
    let byText = this.byKind.get(kind);
    if (!byText) this.byKind.set(kind, (byText = new Map()));
    const known = byText.get(value);
    if (known) {
      known.mentions++;
      known.recency = Math.max(known.recency, at);
      if (extra?.written) known.written = true;
      if (extra?.failed !== undefined) known.failed = extra.failed;
      if (extra?.detail !== undefined) known.detail = extra.detail;
      return known;
    }
    const fact: Fact = { kind, text: value, mentions: 1, recency: at, ...extra };
    byText.set(value, fact);
    this.order.push(fact);
    return fact;
  }

  /** Adds a fact carried over from an earlier ledger, keeping what it said about it. */
  merge(fact: Fact, at: number): void {
    const added = this.add(fact.kind, fact.text, at, {
      ...(fact.detail !== undefined && { detail: fact.detail }),
      ...(fact.written && { written: true }),
      ...(fact.failed !== undefined && { failed: fact.failed }),
    });
    if (added && fact.mentions > 1) added.mentions += fact.mentions - 1;
  }

  get size(): number {
    return this.order.length;
  }

  list(): Fact[] {
    return [...this.order];
  }
}

/**
 * Every fact of a span of messages, in order of first appearance. What counts:
 *
 * - instructions: the user's own messages, verbatim up to 400 characters (set-up such as
 *   slash-command wrappers and system reminders removed);
 * - paths: in tool-call arguments, commands, the user's and the agent's prose, error lines;
 * - commands: every shell command run, with its exit status;
 * - error lines: as tools and commands print them (not code that mentions an error);
 * - numbers with units and versions: in prose, error lines and the last lines of outputs;
 * - identifiers and URLs: in prose, tool-call arguments and error lines.
 *
 * File contents a tool showed (a read, a search hit listing) count only for their errors:
 * what a file says can be read again; what the agent did and saw happen cannot. Facts of a
 * ledger an earlier compaction wrote are carried over as they are (never nested).
 */
export function extractSpanFacts(span: readonly SpanMessage[]): FactSet {
  const facts = new FactSet();
  const results = resultsByCallId(span);
  const observations = setUpMessages(span);
  const last = Math.max(1, span.length - 1);
  for (let i = 0; i < span.length; i++) {
    const { message: m, kind } = span[i]!;
    const at = i / last;
    const content = m.content ?? '';
    if (m.role === 'tool') {
      // Results are read with their call; one without a call in the span is still output.
      if (!m.tool_call_id || !results.calls.has(m.tool_call_id)) outputFacts(facts, content, at);
      continue;
    }
    if (observations.has(i)) continue;
    const { body, ledger } = splitLedger(content);
    for (const fact of ledger) facts.merge(fact, at);
    if (m.role === 'user' || m.role === 'system') {
      if (m.role === 'user' && kind !== 'summary' && kind !== 'truncation-marker') {
        const words = userWords(body);
        if (words) facts.add('instruction', clip(words, INSTRUCTION_CHARS), at);
      }
      proseFacts(facts, body, at);
      continue;
    }
    proseFacts(facts, body, at);
    for (const call of m.tool_calls ?? []) {
      const args = parseArgs(call.function.arguments);
      callFacts(
        facts,
        call.function.name,
        args,
        call.function.arguments,
        results.byId.get(call.id),
        at,
      );
    }
    if (!m.tool_calls?.length) {
      const command = fencedCommand(content);
      const next = span[i + 1]?.message;
      if (command && (next === undefined || next.role === 'user')) {
        if (next) observations.add(i + 1);
        textCommandFacts(facts, command, next?.content ?? undefined, at);
      }
    }
  }
  return facts;
}

/**
 * Long user messages before the one the agent's first reply answers: set-up such as
 * SWE-agent's demonstration of another task, whose paths and names are the example's, not
 * this task's. Short ones stay (Claude Code sends a slash command, then its expansion).
 */
function setUpMessages(span: readonly SpanMessage[]): Set<number> {
  const firstReply = span.findIndex((s) => s.message.role === 'assistant');
  const out = new Set<number>();
  if (firstReply <= 0) return out;
  let request = -1;
  for (let i = firstReply - 1; i >= 0; i--) {
    const { message: m, kind } = span[i]!;
    if (m.role !== 'user' || kind === 'summary' || !userWords(m.content ?? '')) continue;
    if (request < 0) request = i;
    else if ((m.content ?? '').length > SET_UP_CHARS && !splitLedger(m.content!).ledger.length) {
      out.add(i);
    }
  }
  return out;
}

function callFacts(
  facts: FactSet,
  name: string,
  args: Record<string, unknown> | undefined,
  rawArgs: string,
  result: string | undefined,
  at: number,
): void {
  const kind = actionKind(name, args);
  const output = result ?? '';
  switch (kind) {
    case 'read':
    case 'search':
      for (const p of argPaths(args)) if (p !== '.' && p !== './') facts.add('path', p, at);
      // A file's content is not evidence of what happened; a refusal on its first line is.
      errorFacts(facts, firstLine(output), name, at);
      return;
    case 'write':
      for (const p of argPaths(args)) facts.add('path', p, at, { written: true });
      errorFacts(facts, output, name, at);
      return;
    case 'patch':
      for (const p of patchPaths(patchText(args, rawArgs)))
        facts.add('path', p, at, { written: true });
      errorFacts(facts, output, name, at);
      return;
    case 'command': {
      const patch = shellPatch(args);
      if (patch !== undefined) {
        for (const p of patchPaths(patch)) facts.add('path', p, at, { written: true });
        errorFacts(facts, output, 'apply_patch', at);
        return;
      }
      commandFacts(facts, commandOf(args, rawArgs), result, at);
      return;
    }
    case 'other':
      for (const p of argPaths(args)) facts.add('path', p, at);
      for (const url of findUrls(rawArgs)) facts.add('url', url, at);
      for (const value of argValues(args)) facts.add('identifier', value, at);
      if (result !== undefined) outputFacts(facts, output, at, name);
  }
}

function commandFacts(
  facts: FactSet,
  command: string,
  result: string | undefined,
  at: number,
): void {
  const line = clip(firstLine(command), COMMAND_CHARS);
  if (!line) return;
  const scanned = result === undefined ? undefined : headAndTail(result);
  const status = scanned === undefined ? undefined : exitStatus(scanned);
  const reader = isReaderCommand(command);
  const strongErrors = scanned === undefined ? [] : findErrorLines(scanned, { weak: false });
  const failed = status !== undefined ? status !== 'exit 0' : strongErrors.length > 0;
  facts.add('command', line, at, {
    ...(status !== undefined && { detail: status }),
    ...(result !== undefined && { failed }),
  });
  wordFacts(facts, command, at);
  if (result === undefined) return;
  // A reader's output is file content: only a refusal on its first line is an outcome.
  if (reader) errorFacts(facts, firstLine(result), line, at, false);
  else outputFacts(facts, result, at, line, failed);
}

/** SWE-agent style: `open path`, `create path`, `edit a:b` (on the open file), or a shell command. */
function textCommandFacts(
  facts: FactSet,
  command: string,
  observation: string | undefined,
  at: number,
): void {
  const kind = textActionKind(command);
  const words = firstLine(command).split(/\s+/);
  const arg = words.slice(1).find((w) => !w.startsWith('-') && !/^\d+(:\d+)?$/.test(w));
  const target = arg?.replace(/^["']|["']$/g, '');
  if (kind === 'read' || kind === 'search') {
    if (target && kind === 'read') facts.add('path', target, at);
    if (observation !== undefined) errorFacts(facts, firstLine(observation), words[0]!, at);
    return;
  }
  if (kind === 'write') {
    // `edit` names no file: the viewer's header in the answer says which file changed.
    const header = observation && /^\[File: (\S+) \(\d+ lines total\)\]/.exec(observation);
    const file = words[0] === 'edit' ? header?.[1] : target;
    if (file) facts.add('path', file, at, { written: true });
    if (observation !== undefined) errorFacts(facts, observation, words[0]!, at);
    return;
  }
  commandFacts(facts, command, observation, at);
}

/**
 * What an output (a command's, or an unknown tool's) shows: errors, URLs, numbers at its end.
 * A line that only mentions a failure counts when the command did not succeed (`weak`).
 */
function outputFacts(
  facts: FactSet,
  output: string,
  at: number,
  source?: string,
  weak = false,
): void {
  if (!output) return;
  const scanned = headAndTail(output);
  errorFacts(facts, scanned, source, at, weak);
  for (const url of findUrls(scanned)) facts.add('url', url, at);
  const tail = scanned.split('\n').slice(-OUTPUT_TAIL_LINES).join('\n');
  for (const n of findNumbers(tail)) facts.add('number', n, at);
}

function errorFacts(
  facts: FactSet,
  text: string,
  source: string | undefined,
  at: number,
  weak = true,
): void {
  for (const line of findErrorLines(text, { weak })) {
    facts.add('error', line, at, { ...(source && { detail: clip(source, 60) }), failed: true });
    const found = textFacts(line);
    for (const p of found.paths) facts.add('path', p, at);
    for (const n of found.numbers) facts.add('number', n, at);
    for (const id of found.identifiers) facts.add('identifier', id, at);
  }
}

/** Prose of the user or the agent: fenced code (a proposal, a pasted file) is left out. */
function proseFacts(facts: FactSet, text: string, at: number): void {
  if (!text.trim()) return;
  wordFacts(facts, proseOf(text), at);
}

function wordFacts(facts: FactSet, text: string, at: number): void {
  const found = textFacts(text);
  for (const url of found.urls) facts.add('url', url, at);
  for (const p of found.paths) facts.add('path', p, at);
  for (const n of found.numbers) facts.add('number', n, at);
  for (const id of found.identifiers) facts.add('identifier', id, at);
}

/**
 * The user's own words in a message: what agents wrap around them (slash-command tags, system
 * reminders, local command output, Claude Code's caveat) removed. Empty when nothing is left.
 */
export function userWords(content: string): string {
  const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(content)?.[1]?.trim();
  const name = /<command-name>([\s\S]*?)<\/command-name>/.exec(content)?.[1]?.trim();
  if (name !== undefined) return args ? `${name} ${args}` : '';
  return content
    .replace(/<(system-reminder|local-command-stdout|local-command-stderr)>[\s\S]*?<\/\1>/g, ' ')
    .replace(
      /^Caveat: The messages below were generated by the user while running local commands[^\n]*$/gm,
      ' ',
    )
    .replace(/^\[Request interrupted by user[^\]]*\]$/gm, ' ')
    .trim();
}

/**
 * What a domain tool was called with (`reservation_id: "4WQ150"`, `user_id: "mia_li_3668"`):
 * short single-word values are the ids and names the agent acts on. Prose, paths (counted as
 * paths) and URLs are left out.
 */
function argValues(args: Record<string, unknown> | undefined): string[] {
  if (!args) return [];
  const out: string[] = [];
  for (const value of Object.values(args)) {
    if (typeof value !== 'string') continue;
    const v = value.trim();
    if (/^[\w.:@#-]{3,64}$/.test(v) && /[\d_A-Z]/.test(v) && !/^\d+$/.test(v)) out.push(v);
  }
  return out;
}

function resultsByCallId(span: readonly SpanMessage[]): {
  byId: Map<string, string>;
  calls: Set<string>;
} {
  const byId = new Map<string, string>();
  const calls = new Set<string>();
  for (const { message: m } of span) {
    if (m.role === 'tool' && m.tool_call_id) byId.set(m.tool_call_id, m.content ?? '');
    for (const call of m.tool_calls ?? []) calls.add(call.id);
  }
  return { byId, calls };
}
