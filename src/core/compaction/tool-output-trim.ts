import fs from 'node:fs';
import type { ToolOutputStore } from '../store/tool-output-store';
import { estimateTokens } from '../tokens/estimate';
import { cutToChars } from '../tools/output-limits';
import type { ContextStats, Strategy, StrategyContext, StrategyResult } from './strategy';
import { triggerTokens } from './strategy';
import { withContent, type ViewEntry } from './view';

/**
 * Seed 002 §1 tool output cache as a compaction: tool outputs are shown through in-context
 * views (long lines and long outputs cut, §1.6), and when all tool outputs together cost more
 * than the budget the oldest are replaced by a placeholder naming the ref under which the
 * full output can be read back with `tool_output_cache` (§1.7). The newest output is never
 * replaced: it is the one the model is acting on.
 */
export interface ToolOutputTrimParams {
  /** Tokens all tool outputs may use together; null derives it from the context window (§1.3). */
  context_budget_tokens: number | null;
  /** The most one tool output may show (seed maxMessageBytes). */
  max_message_bytes: number;
  /** Longer lines are cut (seed maxLineLength). */
  max_line_length: number;
}

export const TOOL_OUTPUT_TRIM_DEFAULTS: ToolOutputTrimParams = {
  context_budget_tokens: null,
  max_message_bytes: 50 * 1024,
  max_line_length: 2000,
};

export const TRIMMED_PREFIX = '[tool output trimmed;';
/** Shown instead of a ref in a dry run, where nothing is saved. */
export const PENDING_REF = '(pending)';

/** Bytes kept free under max_message_bytes for the note that names the ref. */
const NOTE_RESERVE_BYTES = 256;
/** A byte cut moves back to a line break when one is this close, so views end on whole lines. */
const SNAP_TO_NEWLINE_BYTES = 2048;
/** How far from the end a `full output: ref=` note is taken as this output's own. */
const NOTE_TAIL_CHARS = 512;
/** Refs listed by name in the summary; the rest are counted. */
const LISTED_REFS = 3;
/** Stands in for a ref while costs are estimated, before refs exist (a typical ref's length). */
const PROVISIONAL_REF = 'trim_000000000000';

export function trimmedPlaceholder(ref: string): string {
  return `${TRIMMED_PREFIX} ref=${ref}]`;
}

/** seed 002 §1.3: budget = clamp(context_window × 0.25, 20 000, 60 000) unless given. */
export function toolOutputBudget(
  contextWindow: number,
  params: Pick<ToolOutputTrimParams, 'context_budget_tokens'>,
): number {
  if (params.context_budget_tokens !== null) return params.context_budget_tokens;
  return Math.min(60_000, Math.max(20_000, Math.floor(contextWindow * 0.25)));
}

export interface ContextView {
  /** The cut text, without the note naming the ref. */
  text: string;
  linesCut: number;
  bytesCut: boolean;
  /** Bytes of the text before cutting. */
  bytes: number;
}

/**
 * seed 002 §1.6: each line cut at max_line_length, then the whole cut at max_message_bytes
 * (less room for the note). A cut line keeps its marker within max_line_length, so the view
 * of a view is itself: running the strategy again cuts nothing more.
 */
export function contextView(
  content: string,
  params: Pick<ToolOutputTrimParams, 'max_message_bytes' | 'max_line_length'>,
): ContextView {
  let linesCut = 0;
  let text = content;
  const maxLine = params.max_line_length;
  if (maxLine > 0 && content.length > maxLine) {
    text = content
      .split('\n')
      .map((line) => {
        if (line.length <= maxLine) return line;
        linesCut++;
        return cutLine(line, maxLine);
      })
      .join('\n');
  }
  const bytes = Buffer.byteLength(content);
  if (Buffer.byteLength(text) <= params.max_message_bytes) {
    return { text, linesCut, bytesCut: false, bytes };
  }
  const buf = Buffer.from(text, 'utf8');
  const end = cutEnd(buf, Math.max(0, params.max_message_bytes - NOTE_RESERVE_BYTES));
  return { text: buf.subarray(0, end).toString('utf8'), linesCut, bytesCut: true, bytes };
}

function cutLine(line: string, max: number): string {
  const marker = `… [line cut: ${line.length} chars]`;
  const keep = max - marker.length;
  return keep < 1 ? cutToChars(line, max) : `${cutToChars(line, keep)}${marker}`;
}

/** Where to cut `buf` at or before `limit`: after a nearby line break, else on a character boundary. */
function cutEnd(buf: Buffer, limit: number): number {
  const newline = limit > 0 ? buf.lastIndexOf(0x0a, limit - 1) : -1;
  if (newline >= 0 && limit - (newline + 1) <= SNAP_TO_NEWLINE_BYTES) return newline + 1;
  let end = limit;
  while (end > 0 && ((buf[end] ?? 0) & 0xc0) === 0x80) end--;
  return end;
}

/** The view with the note that says where the rest is (seed 002 §1.6, last point). */
export function viewWithNote(view: ContextView, ref: string): string {
  if (!view.bytesCut && view.text.includes(`full output: ref=${ref}`)) return view.text;
  const what = view.bytesCut
    ? `output cut at ${fmt(Buffer.byteLength(view.text))} of ${fmt(view.bytes)} bytes`
    : `${view.linesCut} long line${view.linesCut === 1 ? '' : 's'} cut`;
  const lineEnd = view.text === '' || view.text.endsWith('\n') ? '' : '\n';
  return `${view.text}${lineEnd}[${what}; full output: ref=${ref}; read it with tool_output_cache]`;
}

type Change = { kind: 'view'; view: ContextView } | { kind: 'placeholder' };

export const toolOutputTrim: Strategy<ToolOutputTrimParams> = {
  name: 'tool-output-trim',

  // Tool outputs cannot cost more than the whole context, so a context under the budget
  // needs no trimming; over it, `run` finds out whether tool outputs are the cause.
  needed(stats: ContextStats, params: ToolOutputTrimParams): boolean {
    return triggerTokens(stats) > toolOutputBudget(stats.contextWindow, params);
  },

  // async so that a failure (a tool output that cannot be saved) rejects instead of throwing
  async run(ctx: StrategyContext, params: ToolOutputTrimParams): Promise<StrategyResult> {
    return trim(ctx, params);
  },
};

function trim(ctx: StrategyContext, params: ToolOutputTrimParams): StrategyResult {
  const budget = toolOutputBudget(ctx.contextWindow, params);
  const tools: number[] = [];
  ctx.view.forEach((e, i) => {
    if (e.message.role === 'tool') tools.push(i);
  });
  if (tools.length === 0) return { applied: false, reason: 'The context has no tool outputs.' };

  const changes = new Map<number, Change>();
  const cost = new Map<number, number>();
  let total = 0;
  for (const i of tools) {
    const e = ctx.view[i]!;
    const content = e.message.content ?? '';
    let tokens = e.tokens;
    if (!isTrimmed(content)) {
      const view = contextView(content, params);
      if (view.linesCut > 0 || view.bytesCut) {
        changes.set(i, { kind: 'view', view });
        tokens = estimateTokens(viewWithNote(view, PROVISIONAL_REF));
      }
    }
    cost.set(i, tokens);
    total += tokens;
  }
  const before = total;

  // seed 002 §1.7: oldest first, the newest kept, until the outputs fit the budget; an
  // output no bigger than its placeholder stays, replacing it would save nothing
  const placeholderTokens = estimateTokens(trimmedPlaceholder(PROVISIONAL_REF));
  const newest = tools[tools.length - 1]!;
  for (const i of tools) {
    if (total <= budget) break;
    if (i === newest || isTrimmed(ctx.view[i]!.message.content ?? '')) continue;
    if (cost.get(i)! <= placeholderTokens) continue;
    total -= cost.get(i)! - placeholderTokens;
    changes.set(i, { kind: 'placeholder' });
  }

  if (changes.size === 0) return { applied: false, reason: nothingToDo(before, budget, params) };

  const view: ViewEntry[] = [...ctx.view];
  const refs: string[] = [];
  let changedBefore = 0;
  let changedAfter = 0;
  let placeholders = 0;
  for (const [i, change] of [...changes].sort((a, b) => a[0] - b[0])) {
    const entry = ctx.view[i]!;
    const ref = fullOutputRef(entry, ctx);
    refs.push(ref);
    const text =
      change.kind === 'placeholder' ? trimmedPlaceholder(ref) : viewWithNote(change.view, ref);
    if (change.kind === 'placeholder') placeholders++;
    view[i] = withContent(entry, text);
    changedBefore += entry.tokens;
    changedAfter += view[i].tokens;
  }
  const toolTokens = tools.reduce((sum, i) => sum + view[i]!.tokens, 0);
  const parts = [
    placeholders > 0
      ? `${placeholders} replaced by placeholder${placeholders === 1 ? '' : 's'}`
      : '',
    changes.size > placeholders ? `${changes.size - placeholders} shortened` : '',
  ].filter(Boolean);
  const summary =
    `Trimmed ${changes.size} tool output${changes.size === 1 ? '' : 's'} ` +
    `(${fmt(changedBefore)} → ${fmt(changedAfter)} tokens; ${parts.join(', ')}); ` +
    `full outputs behind refs ${describeRefs(refs)}. ` +
    `Tool outputs now use ${fmt(toolTokens)} tokens (budget ${fmt(budget)}).`;
  return { applied: true, view, summary };
}

function nothingToDo(tokens: number, budget: number, params: ToolOutputTrimParams): string {
  if (tokens > budget) {
    return `Tool outputs use ${fmt(tokens)} tokens, over the ${fmt(budget)}-token budget, but the only one not yet trimmed is the newest, which is kept.`;
  }
  return (
    `Tool outputs use ${fmt(tokens)} tokens, within the ${fmt(budget)}-token budget, and none is over ` +
    `${fmt(params.max_message_bytes)} bytes or has lines over ${fmt(params.max_line_length)} characters.`
  );
}

/**
 * Where the full output of `entry` can be read: the ref the message was stored with, the
 * ref a note at the end of what it shows names (an earlier trim or the tool's own cut), or
 * a new file holding the stored content — none in a dry run, which writes nothing.
 */
export function fullOutputRef(entry: ViewEntry, ctx: StrategyContext): string {
  const own = entry.record?.output_ref;
  if (own && refExists(ctx.toolOutputs, own)) return own;
  const noted = notedRef(entry.message.content ?? '');
  if (noted && refExists(ctx.toolOutputs, noted)) return noted;
  if (ctx.dryRun) return PENDING_REF;
  return ctx.toolOutputs.saveCopy(entry.record?.content ?? entry.message.content ?? '', 'trim').ref;
}

const NOTE_REF = /full output: ref=([A-Za-z0-9_-]{1,64})/g;

function notedRef(content: string): string | undefined {
  const tail = content.slice(-NOTE_TAIL_CHARS);
  let last: string | undefined;
  for (const m of tail.matchAll(NOTE_REF)) last = m[1];
  return last;
}

function refExists(store: ToolOutputStore, ref: string): boolean {
  try {
    return store.exists(ref);
  } catch {
    // a ref outside the store's alphabet names no file
    return false;
  }
}

export function isTrimmed(content: string): boolean {
  return content.startsWith(TRIMMED_PREFIX);
}

function describeRefs(refs: readonly string[]): string {
  const pending = refs.filter((r) => r === PENDING_REF).length;
  const real = [...new Set(refs.filter((r) => r !== PENDING_REF))];
  const parts: string[] = [];
  if (real.length > 0) {
    const more = real.length - LISTED_REFS;
    parts.push(real.slice(0, LISTED_REFS).join(', ') + (more > 0 ? ` and ${more} more` : ''));
  }
  if (pending > 0) parts.push(`${pending} to be saved ${PENDING_REF}`);
  return parts.join('; ');
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

const REF_WORD = /ref=([A-Za-z0-9_-]{1,64})/g;

/** Refs a text points at (`ref=ID` in placeholders and notes), for garbage collection. */
export function refsInText(text: string): string[] {
  return [...text.matchAll(REF_WORD)].map((m) => m[1]!);
}

/**
 * seed 002 §1.9: refs in tool_outputs/ that nothing in `refsInUse` points at. Only lists
 * them — whether a ref is still reachable (an undoable compaction, messages.jsonl) is the
 * engine's call. Temporary files of interrupted writes (`.x.tmp-*`) are not refs.
 */
export function collectUnreferencedRefs(
  refsInUse: Set<string>,
  toolOutputs: ToolOutputStore,
): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(toolOutputs.dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names
    .filter((n) => n.endsWith('.txt') && !n.startsWith('.'))
    .map((n) => n.slice(0, -'.txt'.length))
    .filter((ref) => /^[A-Za-z0-9_-]{1,64}$/.test(ref) && !refsInUse.has(ref))
    .sort();
}
