import { realRequest } from './real-request';
import type { ContextStats, Strategy, StrategyResult, Summarizer } from './strategy';
import { triggerTokens } from './strategy';
import type { ViewEntry } from './view';
import { createdEntry, viewTokens } from './view';
import { splitSystem } from './format-messages';
import { safeCut } from './tool-pairing';
import { statsOfContext } from './truncate';
import { estimateTokens } from '../tokens/estimate';
import { LEDGER_DEFAULTS, type LedgerBudget } from '../facts/fact-ledger-budget';
import { splitLedger } from '../facts/fact-ledger-text';
import { findErrorLines, headAndTail, proseOf } from '../facts/text-facts';
import { withFactLedger } from './summary-ledger';
import {
  TEXT_READ,
  TEXT_WRITE,
  actionKind,
  argPaths,
  clip,
  commandOf,
  exitStatus,
  fencedCommand,
  firstLine,
  isReaderCommand,
  normalizeToolName,
  parseArgs,
  patchPaths,
  patchText,
  shellPatch,
  textActionKind,
} from '../facts/tool-actions';

/**
 * The no-LLM structured digest (DESIGN.md §5.6): what an agent needs to keep working after
 * its older messages leave the context — the goal, the files it touched, the commands it
 * ran and how they ended, errors, decisions and what is still open. Everything is picked
 * out of the messages as they are (tool-call arguments, tool results, assistant prose), so
 * it runs offline and in dry runs.
 */

export const EXTRACTIVE_HEADER = 'Summary of earlier work (extractive digest, no LLM):';
export const DIGEST_MAX_TOKENS = 2000;

const GOAL_CHARS = 800;
const ITEM_CHARS = 220;
const COMMAND_CHARS = 160;
/** Per-section caps: the newest items win, since they describe the state the agent is in. */
const CAPS = { read: 40, written: 40, commands: 25, errors: 12, decisions: 12, open: 10 };
const OPEN_ITEM_MESSAGES = 3;

type ListSection = keyof typeof CAPS;

const SECTION_TITLES: Record<ListSection, string> = {
  read: 'Files read',
  written: 'Files written',
  commands: 'Commands',
  errors: 'Errors',
  decisions: 'Decisions',
  open: 'Open items',
};
const GOAL_TITLE = 'Goal';

export interface DigestOptions {
  /** Upper bound of the digest in seed-estimate tokens (default 2,000). */
  maxTokens?: number;
}

/** One tool use: a structured call, or a command a text-protocol agent wrote in a code fence. */
interface Action {
  name: string;
  args: Record<string, unknown> | undefined;
  rawArgs: string;
  result: string | undefined;
  /** The fenced command of a text-protocol agent (SWE-agent): its words are the arguments. */
  text?: string;
}

/** Ordered, de-duplicated items; re-adding an item moves it to the end (most recent). */
class Items {
  private readonly map = new Map<string, string>();
  omitted = 0;

  add(key: string, text = key): void {
    this.map.delete(key);
    this.map.set(key, text);
  }

  get size(): number {
    return this.map.size;
  }

  values(): string[] {
    return [...this.map.values()];
  }

  /** Keeps the newest `max` items. */
  cap(max: number): void {
    while (this.map.size > max) this.dropOldest();
  }

  dropOldest(): void {
    const first = this.map.keys().next();
    if (first.done) return;
    this.map.delete(first.value);
    this.omitted++;
  }
}

interface Digest {
  goal: string | undefined;
  lists: Record<ListSection, Items>;
}

export function extractiveDigest(
  entries: readonly ViewEntry[],
  options: DigestOptions = {},
): string {
  const digest: Digest = {
    goal: undefined,
    lists: {
      read: new Items(),
      written: new Items(),
      commands: new Items(),
      errors: new Items(),
      decisions: new Items(),
      open: new Items(),
    },
  };
  const results = resultsById(entries);
  const observations = new Set<number>();
  const assistantTexts: string[] = [];
  let firstUser: string | undefined;
  let request: string | undefined;
  let answered = false;
  for (let i = 0; i < entries.length; i++) {
    const m = entries[i]!.message;
    const content = m.content ?? '';
    const previous = parseDigest(content);
    if (previous) {
      // An earlier digest in the range: fold it in rather than digest a digest.
      mergeDigest(digest, previous);
      continue;
    }
    const asked = m.role === 'user' && !observations.has(i) ? realRequest(content) : undefined;
    if (asked !== undefined) {
      firstUser ??= asked;
      if (!answered) request = asked;
    }
    if (m.role !== 'assistant') continue;
    // The goal is the request the first reply answers: user messages before it may be
    // set-up (SWE-agent puts a whole demonstration first).
    if (!answered && digest.goal === undefined && request !== undefined)
      digest.goal = clip(request, GOAL_CHARS);
    answered = true;
    if (content.trim()) assistantTexts.push(content);
    for (const sentence of decisionSentences(content)) digest.lists.decisions.add(sentence);
    for (const call of m.tool_calls ?? []) {
      const result = results.get(call.id);
      noteAction(digest, {
        name: call.function.name,
        args: parseArgs(call.function.arguments),
        rawArgs: call.function.arguments,
        result,
      });
    }
    if (!m.tool_calls?.length) {
      const next = entries[i + 1]?.message;
      const command = fencedCommand(content);
      // The last message of the range may be a command whose output is not in it yet.
      if (command && (next === undefined || next.role === 'user')) {
        if (next) observations.add(i + 1);
        const name = command.split(/\s+/)[0] ?? command;
        noteAction(digest, {
          name,
          args: undefined,
          rawArgs: '',
          result: next ? (next.content ?? '') : undefined,
          text: command,
        });
      }
    }
  }
  if (digest.goal === undefined && firstUser !== undefined)
    digest.goal = clip(firstUser, GOAL_CHARS);
  for (const item of openItems(assistantTexts.slice(-OPEN_ITEM_MESSAGES)))
    digest.lists.open.add(item);
  for (const item of openPlanItems(entries)) digest.lists.open.add(item);
  for (const key of Object.keys(CAPS) as ListSection[]) digest.lists[key].cap(CAPS[key]);
  return fitBudget(digest, options.maxTokens ?? DIGEST_MAX_TOKENS);
}

/** The extractive Summarizer: the offline default; it ignores the prompt and has no `complete`. */
export const extractiveSummarizer: Summarizer = {
  kind: 'extractive',
  summarize: (entries) =>
    Promise.resolve(extractiveDigest(entries, { maxTokens: digestTokens(viewTokens(entries)) })),
};

// ---------------------------------------------------------------- actions

function noteAction(digest: Digest, action: Action): void {
  const { lists } = digest;
  if (action.text !== undefined) {
    noteTextCommand(digest, action.text, action.result ?? '');
  } else {
    const kind = actionKind(action.name, action.args);
    const paths = argPaths(action.args);
    if (kind === 'read' || kind === 'search') {
      for (const p of paths) if (p !== '.' && p !== './') lists.read.add(p);
    } else if (kind === 'write') {
      for (const p of paths) lists.written.add(p);
    } else if (kind === 'patch') {
      for (const p of patchPaths(patchText(action.args, action.rawArgs))) lists.written.add(p);
    } else if (kind === 'command') {
      const patch = shellPatch(action.args);
      if (patch !== undefined) for (const p of patchPaths(patch)) lists.written.add(p);
      else noteCommand(lists.commands, commandOf(action.args, action.rawArgs), action.result);
    }
  }
  const source = action.text !== undefined ? firstLine(action.text) : action.name;
  const result = action.result ?? '';
  const errors = findErrorLines(showsFileContent(action) ? firstLine(result) : result);
  for (const line of errors) {
    lists.errors.add(line, `${clip(source, 60)}: ${line}`);
  }
}

/**
 * Tools whose results are file contents or search hits: a word like "error" in there is
 * somebody's code, so only their first line (where a failure is reported) is looked at.
 */
function showsFileContent(action: Action): boolean {
  if (action.text !== undefined) {
    const kind = textActionKind(action.text);
    return kind === 'read' || kind === 'search';
  }
  const kind = actionKind(action.name, action.args);
  if (kind === 'read' || kind === 'search') return true;
  return kind === 'command' && isReaderCommand(commandOf(action.args, action.rawArgs));
}

/** SWE-agent style: `open path [line]`, `create path`, `edit a:b` (on the open file). */
function noteTextCommand(digest: Digest, command: string, result: string): void {
  const words = firstLine(command).split(/\s+/);
  const verb = words[0] ?? '';
  const arg = words.slice(1).find((w) => !w.startsWith('-') && !/^\d+(:\d+)?$/.test(w));
  const path = arg?.replace(/^["']|["']$/g, '');
  if (TEXT_READ.has(verb) && path) digest.lists.read.add(path);
  if (TEXT_WRITE.has(verb)) {
    // `edit` names no file: the viewer's header says which file the edit changed. A failed
    // edit answers with an error first, so only a result that starts with the header counts.
    const header = /^\[File: (\S+) \(\d+ lines total\)\]/.exec(result);
    const target = verb === 'edit' ? header?.[1] : path;
    if (target) digest.lists.written.add(target);
  }
  noteCommand(
    digest.lists.commands,
    command,
    verb === 'edit' || verb === 'create' ? undefined : result,
  );
}

function noteCommand(commands: Items, command: string, result: string | undefined): void {
  const text = clip(firstLine(command), COMMAND_CHARS);
  if (!text) return;
  const status = result === undefined ? undefined : exitStatus(headAndTail(result));
  commands.add(text, `\`${text}\`${status ? ` → ${status}` : ''}`);
}

function resultsById(entries: readonly ViewEntry[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of entries) {
    const m = e.message;
    if (m.role === 'tool' && m.tool_call_id) out.set(m.tool_call_id, m.content ?? '');
  }
  return out;
}

// ---------------------------------------------------------------- prose

const DECISION =
  /\b(?:decided|decide|decision|will|plan|planning|because)\b|\b(?:I|we)'ll\b|決め|方針|予定|理由/i;

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function decisionSentences(content: string): string[] {
  if (!content) return [];
  return sentences(proseOf(content))
    .filter((s) => s.length >= 12 && DECISION.test(s))
    .map((s) => clip(s, ITEM_CHARS));
}

const OPEN_ITEM =
  /\b(?:TODO|FIXME|next steps?|remaining|still need|needs? to|not yet|left to)\b|^\s*[-*]\s*\[ \]|次に|残り|未対応/i;

/** TODOs and next steps of the newest assistant messages (older ones were likely done). */
function openItems(texts: readonly string[]): string[] {
  const out: string[] = [];
  for (const text of texts) {
    for (const line of proseOf(text).split('\n')) {
      const l = line.trim();
      if (l.length >= 4 && OPEN_ITEM.test(l))
        out.push(clip(l.replace(/^[-*]\s*(?:\[ \]\s*)?/, ''), ITEM_CHARS));
    }
  }
  return out;
}

/** The unfinished steps of the newest plan tool call (update_plan, Codex plans, Claude TodoWrite). */
function openPlanItems(entries: readonly ViewEntry[]): string[] {
  for (let i = entries.length - 1; i >= 0; i--) {
    for (const call of [...(entries[i]!.message.tool_calls ?? [])].reverse()) {
      const name = normalizeToolName(call.function.name);
      if (name !== 'updateplan' && name !== 'todowrite') continue;
      const args = parseArgs(call.function.arguments);
      const plan = args?.plan ?? args?.todos;
      if (typeof plan === 'string') {
        return plan
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l && !/\b(?:done|completed|finished)\b|\[x\]|✓|✔/i.test(l))
          .map((l) => clip(l, ITEM_CHARS));
      }
      if (Array.isArray(plan)) {
        return plan.flatMap((step: unknown) => {
          if (!step || typeof step !== 'object') return [];
          const s = step as Record<string, unknown>;
          const text = s.step ?? s.content ?? s.title;
          if (typeof text !== 'string' || s.status === 'completed') return [];
          return [
            clip(`${text}${typeof s.status === 'string' ? ` (${s.status})` : ''}`, ITEM_CHARS),
          ];
        });
      }
    }
  }
  return [];
}

// ---------------------------------------------------------------- rendering

function render(digest: Digest): string {
  const parts = [`## ${GOAL_TITLE}\n${digest.goal ?? '(no user message in this range)'}`];
  for (const key of Object.keys(SECTION_TITLES) as ListSection[]) {
    const items = digest.lists[key];
    if (items.size === 0 && items.omitted === 0) continue;
    const lines = items.values().map((v) => `- ${v}`);
    if (items.omitted > 0) lines.unshift(`(${items.omitted} earlier not shown)`);
    parts.push(`## ${SECTION_TITLES[key]}\n${lines.join('\n')}`);
  }
  return parts.join('\n\n');
}

/** Drops the oldest item of the largest section until the digest fits. */
function fitBudget(digest: Digest, maxTokens: number): string {
  let text = render(digest);
  while (estimateTokens(text) > maxTokens) {
    let largest: Items | undefined;
    let largestChars = 0;
    for (const items of Object.values(digest.lists)) {
      const chars = items.values().reduce((n, v) => n + v.length, 0);
      if (items.size > 0 && chars > largestChars) {
        largest = items;
        largestChars = chars;
      }
    }
    if (!largest) {
      // Only the goal is left: cut it to what remains of the budget.
      const room = Math.max(40, maxTokens * 2 - 100);
      digest.goal = clip(digest.goal ?? '', room);
      return render(digest);
    }
    largest.dropOldest();
    text = render(digest);
  }
  return text;
}

export interface ParsedDigest {
  goal: string | undefined;
  lists: Partial<Record<ListSection, string[]>>;
}

const TITLE_TO_SECTION = new Map<string, ListSection>(
  (Object.entries(SECTION_TITLES) as [ListSection, string][]).map(([k, v]) => [v, k]),
);

/** Reads back a digest this module wrote (possibly behind a header line), else undefined. */
export function parseDigest(text: string): ParsedDigest | undefined {
  // The ledger under a digest is read by the fact extractor, not here.
  const content = splitLedger(text).body;
  const start = content.indexOf(`## ${GOAL_TITLE}\n`);
  if (start < 0 || (start > 0 && !content.slice(0, start).includes('extractive digest')))
    return undefined;
  // A model's summary may use a "## Goal" heading too: only our exact sections make a digest.
  const titles = [...content.slice(start).matchAll(/^## (.+)$/gm)].map((m) => m[1]!.trim());
  if (titles.some((t) => t !== GOAL_TITLE && !TITLE_TO_SECTION.has(t))) return undefined;
  const out: ParsedDigest = { goal: undefined, lists: {} };
  for (const block of content.slice(start).split(/^## /m)) {
    const newline = block.indexOf('\n');
    if (newline < 0) continue;
    const title = block.slice(0, newline).trim();
    const body = block.slice(newline + 1).trim();
    if (title === GOAL_TITLE) {
      out.goal = body.startsWith('(no user message') ? undefined : body;
      continue;
    }
    const key = TITLE_TO_SECTION.get(title);
    if (!key) continue;
    out.lists[key] = body
      .split('\n')
      .filter((l) => l.startsWith('- '))
      .map((l) => l.slice(2));
  }
  return out;
}

function mergeDigest(digest: Digest, previous: ParsedDigest): void {
  if (digest.goal === undefined && previous.goal) digest.goal = previous.goal;
  for (const [key, items] of Object.entries(previous.lists) as [ListSection, string[]][]) {
    for (const item of items) digest.lists[key].add(item);
  }
}

// ---------------------------------------------------------------- the strategy

export interface ExtractiveParams {
  keep_recent_messages: number;
  min_to_compress: number;
  /** The trigger, passed through by the engine like the summarize strategy's (seed 000/001). */
  threshold_tokens: number;
  /** How large the fact ledger under the digest may grow (config `compaction.fact_ledger`). */
  fact_ledger: LedgerBudget;
}

/** seed 000 keep_recent_messages 5, seed 001 min_to_compress 5 and token_threshold 8000. */
export const EXTRACTIVE_DEFAULTS: ExtractiveParams = {
  keep_recent_messages: 5,
  min_to_compress: 5,
  threshold_tokens: 8000,
  fact_ledger: LEDGER_DEFAULTS,
};

/**
 * The digest's own sections get at most this share of the span (and DIGEST_MAX_TOKENS), so
 * that with its ledger the summary stays a small fraction of what it replaces.
 */
const DIGEST_SHARE = 0.03;
const DIGEST_MIN_TOKENS = 60;

export function digestTokens(spanTokens: number): number {
  return Math.max(
    DIGEST_MIN_TOKENS,
    Math.min(DIGEST_MAX_TOKENS, Math.floor(spanTokens * DIGEST_SHARE)),
  );
}

export const extractive: Strategy<ExtractiveParams> = {
  name: 'extractive',
  needed(stats: ContextStats, params: ExtractiveParams): boolean {
    return triggerTokens(stats) > params.threshold_tokens;
  },
  run(ctx, params): Promise<StrategyResult> {
    if (ctx.reason === 'auto' && !extractive.needed(statsOfContext(ctx), params)) {
      return declined(
        `the context (${triggerTokens(statsOfContext(ctx))} tokens) is not above threshold_tokens (${params.threshold_tokens})`,
      );
    }
    const { system, rest } = splitSystem(ctx.view);
    const keep = Math.max(0, Math.floor(params.keep_recent_messages));
    const cut = safeCut(rest, rest.length - keep);
    const older = rest.slice(0, cut);
    const minimum = Math.max(1, params.min_to_compress);
    if (older.length < minimum) {
      return declined(
        `only ${older.length} message${older.length === 1 ? '' : 's'} before the newest ${rest.length - cut} (min_to_compress is ${minimum})`,
      );
    }
    const replacedTokens = viewTokens(older);
    const digest = extractiveDigest(older, { maxTokens: digestTokens(replacedTokens) });
    const withLedger = withFactLedger(digest, older, rest.slice(cut), params.fact_ledger);
    const content = `${EXTRACTIVE_HEADER} ${older.length} messages (~${replacedTokens} tokens) condensed.\n\n${withLedger}`;
    const summary = createdEntry({ role: 'user', content }, 'summary');
    if (summary.tokens >= replacedTokens) {
      return declined(
        `the digest (~${summary.tokens} tokens) would not be smaller than the ${older.length} messages it replaces (~${replacedTokens} tokens)`,
      );
    }
    return Promise.resolve({
      applied: true,
      view: [...system, summary, ...rest.slice(cut)],
      summary: content,
    });
  },
};

function declined(reason: string): Promise<StrategyResult> {
  return Promise.resolve({ applied: false, reason });
}
