import type { CurrentMessage } from '../../shared/task-types';
import type { ViewEntry } from './view';

/**
 * Seed 003 importance of a message, 0..1: base 0.5, +0.3 error, +0.3 completion, +0.2
 * planning, +0.1 image, −0.1 re-fetchable UI/DOM dump, clamped. The seed names the signals
 * for its own agent (a `done` action, `think` in the planning phase, elementsJson /
 * webElements); the rules below recognize the same signals in any agent's messages.
 *
 * Only the first SCAN_HEAD and last SCAN_TAIL characters of a message are read: errors sit
 * at the start (`Error: …`) or the end (a stack trace, an exit status) of an output, and a
 * multi-megabyte output must not cost a full regex scan per compaction.
 */

export const IMPORTANCE_BASE = 0.5;
export const IMPORTANCE_WEIGHTS = {
  error: 0.3,
  completion: 0.3,
  planning: 0.2,
  image: 0.1,
  uiDump: -0.1,
} as const;

export type ImportanceSignal = keyof typeof IMPORTANCE_WEIGHTS;

const SCAN_HEAD = 8192;
const SCAN_TAIL = 4096;

/**
 * Error rule (any role but system), on the scanned text:
 * - a line starting with `Error:` / `error:` / `ERROR:` (also `error[E0308]:`, as rustc
 *   writes it) — what the tool layer's `failure()` and most CLIs print;
 * - an exception or error type name: `TypeError`, `ValueError`, `NullPointerException`,
 *   `Traceback (most recent call last)`, `panic:`, `Uncaught`;
 * - a non-zero exit status: `exit code 2`, `exit status 1`, `exited with code 1`, or a
 *   process killed by timeout or signal (run_command's status line);
 * - the word `failed` / `FAILED` — except `0 failed`, which is how passing test runs end.
 */
const ERROR_LINE = /^\s*(?:error|Error|ERROR)(?:\[[^\]\n]*\])?:/m;
const ERROR_TYPE =
  /\b[A-Z][A-Za-z0-9]*(?:Error|Exception)\b|Traceback \(most recent call last\)|^panic:|\bUncaught\b/m;
const NONZERO_EXIT =
  /\bexit(?:ed with)? (?:code|status) [1-9]\d*\b|\bkilled by (?:timeout|signal)\b/i;
const FAILED = /(?<!\b0 )\bfailed\b/i;

/**
 * Completion rule:
 * - an assistant message with text and no tool calls — the agent's answer that ends its
 *   turn (what the model concluded is what later steps most often need);
 * - a tool call or result of a finishing tool (`done`, `finish`, `complete_task`,
 *   `task_complete`, `attempt_completion`, `submit`) — the seed's `done` action;
 * - text that says the task is finished: a message that is just "done" / "Done.", or
 *   "task complete(d)", "task is done/finished", "all tests pass(ed)".
 */
const DONE_TOOLS =
  /^(?:done|finish|finished|complete|complete_task|task_complete|attempt_completion|submit)$/i;
const DONE_TEXT =
  /^\s*done[.!]?\s*$|\btask (?:is )?(?:complete|completed|finished|done)\b|\ball tests pass(?:ed)?\b/i;

/**
 * Planning rule:
 * - a call or result of a planning tool: `update_plan`, `think`, `plan`, `todo_write` /
 *   `TodoWrite`, `write_todos`, `sequentialthinking`;
 * - assistant or user text that lays out a plan (tool outputs are left out: source code
 *   is full of `# TODO:` lines): a heading or label line `Plan:`, `## Plan`, `Steps:`,
 *   `Next steps:`, `TODO:`; or the phrases "here is my plan", "here's the plan",
 *   "my plan is", "the plan is", "I will first", "I'll start by"; or two or more numbered
 *   lines (`1.` / `2)`) together with the word "plan" or "step".
 */
const PLAN_TOOLS = /^(?:update_plan|think|plan|todo_?write|write_todos|sequentialthinking)$/i;
const PLAN_HEADING = /^\s*(?:#{1,6}\s*)?(?:plan|steps|next steps|todo)\s*(?::|$)/im;
const PLAN_PHRASE =
  /\b(?:here(?:'s| is) (?:my|the) plan|my plan is|the plan is|i(?:'ll| will) (?:first|start by))\b/i;
const NUMBERED_LINE = /^\s*\d+[.)]\s+\S/gm;
const PLAN_WORD = /\b(?:plan|step)s?\b/i;

/**
 * Image rule: a `data:image/…` URI, an image content part (`"image_url"`, `"input_image"`,
 * `"type": "image"`), the word "screenshot", or a tool whose name contains "screenshot".
 */
const IMAGE_TEXT =
  /data:image\/[\w.+-]+;base64,|"(?:image_url|input_image)"|"type"\s*:\s*"image"|\bscreenshots?\b/i;
const IMAGE_TOOL = /screenshot/i;

/**
 * UI dump rule (tool results only — the seed lowers them because they can be fetched
 * again): the tool's name says it (`elementsJson`, `webElements`, `accessibility`, `a11y`,
 * `dom`, `page_source`, `browser_snapshot`, `get_elements`), or the output looks like one:
 * a macOS accessibility role (`"role": "AXButton"`), Playwright ARIA snapshot refs
 * (`[ref=e12]`), an HTML document (`<!DOCTYPE html` / `<html`), the words elementsJson /
 * webElements, or JSON with ten or more `"children"` keys (a serialized node tree).
 */
const UI_TOOLS =
  /elements_?json|web_?elements|accessibility|a11y|(?:^|_)dom(?:_|$)|page_?source|browser_snapshot|get_elements/i;
const UI_TEXT =
  /"role"\s*:\s*"AX[A-Za-z]+"|\[ref=e\d+\]|<!doctype html|<html[\s>]|\belementsJson\b|\bwebElements\b/i;
const CHILDREN_KEY = /"children"\s*:/g;
const UI_CHILDREN_MIN = 10;

/** The signals a message carries (for the score and for explaining it). */
export function importanceSignals(entry: ViewEntry): Set<ImportanceSignal> {
  const m = entry.message;
  const signals = new Set<ImportanceSignal>();
  if (m.role === 'system') return signals;
  const text = scanned(m.content ?? '');
  const tools = toolNames(m);
  if (readsAsError(text)) signals.add('error');
  if (isCompletion(m, text, tools)) signals.add('completion');
  if (tools.some((t) => PLAN_TOOLS.test(t)) || (m.role !== 'tool' && laysOutPlan(text))) {
    signals.add('planning');
  }
  if (IMAGE_TEXT.test(text) || tools.some((t) => IMAGE_TOOL.test(t))) signals.add('image');
  if (m.role === 'tool' && (tools.some((t) => UI_TOOLS.test(t)) || looksLikeUiDump(text))) {
    signals.add('uiDump');
  }
  return signals;
}

export function importanceScore(entry: ViewEntry): number {
  let score = IMPORTANCE_BASE;
  for (const s of importanceSignals(entry)) score += IMPORTANCE_WEIGHTS[s];
  // rounding keeps sums such as 0.5 + 0.2 + 0.1 comparable for equality (ties)
  return Math.min(1, Math.max(0, Math.round(score * 100) / 100));
}

/** True when the text reads as an error (the error rule above); used by the snapshot too. */
export function readsAsError(text: string): boolean {
  const t = scanned(text);
  return ERROR_LINE.test(t) || ERROR_TYPE.test(t) || NONZERO_EXIT.test(t) || FAILED.test(t);
}

function isCompletion(m: CurrentMessage, text: string, tools: string[]): boolean {
  if (tools.some((t) => DONE_TOOLS.test(t))) return true;
  if (m.role === 'assistant' && !m.tool_calls?.length && text.trim() !== '') return true;
  return m.role !== 'tool' && DONE_TEXT.test(text);
}

function laysOutPlan(text: string): boolean {
  if (PLAN_HEADING.test(text) || PLAN_PHRASE.test(text)) return true;
  const numbered = text.match(NUMBERED_LINE)?.length ?? 0;
  return numbered >= 2 && PLAN_WORD.test(text);
}

function looksLikeUiDump(text: string): boolean {
  if (UI_TEXT.test(text)) return true;
  let n = 0;
  CHILDREN_KEY.lastIndex = 0;
  while (CHILDREN_KEY.exec(text) !== null) {
    if (++n >= UI_CHILDREN_MIN) return true;
  }
  return false;
}

/** Tool names a message involves: the calls it makes, or the tool whose result it is. */
function toolNames(m: CurrentMessage): string[] {
  const names = (m.tool_calls ?? []).map((c) => c.function.name);
  if (m.role === 'tool') {
    const name = m.tool_name ?? m.name;
    if (name) names.push(name);
  }
  return names;
}

function scanned(text: string): string {
  if (text.length <= SCAN_HEAD + SCAN_TAIL) return text;
  return `${text.slice(0, SCAN_HEAD)}\n${text.slice(-SCAN_TAIL)}`;
}
