import { splitLedger } from '../facts/fact-ledger-text';
import type { ToolCall } from '../../shared/task-types';
import { readsAsError } from './importance';
import { entrySeq, type ViewEntry } from './view';

/**
 * Seed 003 ContextSnapshot: what the task is, what was done and where it stands, kept in
 * one short message when older messages leave the context. Built from the view without an
 * LLM, so it costs nothing and works offline.
 */
export type SnapshotPhase = 'planning' | 'executing' | 'completed';

export interface ContextSnapshot {
  /** The user's goal: the first user message, on one line, cut to MAX_GOAL_CHARS. */
  goal: string;
  /** The last MAX_ACTIONS tool calls, oldest first, as `name(short args)`. */
  completedActions: string[];
  currentPhase: SnapshotPhase;
  /** Errors met and the assistant's latest conclusions, newest last, at most MAX_OBSERVATIONS. */
  keyObservations: string[];
  /** Tool calls made before the listed ones (only the last MAX_ACTIONS are listed). */
  earlierActionCount: number;
}

export const SNAPSHOT_HEADER = 'Context snapshot';
export const MAX_ACTIONS = 8;
export const MAX_GOAL_CHARS = 500;
export const MAX_OBSERVATIONS = 6;
/** How many of the assistant's latest answers become observations. */
const MAX_CONCLUSIONS = 2;
const MAX_ARGS_CHARS = 100;
const MAX_ARG_VALUE_CHARS = 40;
const MAX_ERROR_CHARS = 200;
const MAX_CONCLUSION_CHARS = 300;

/**
 * A snapshot an earlier compaction put into the context: a user message it created (kind
 * summary) that starts with the header. A user typing the header is not mistaken for one.
 */
export function isSnapshotEntry(entry: ViewEntry): boolean {
  const m = entry.message;
  if (m.role !== 'user' || !(m.content ?? '').startsWith(SNAPSHOT_HEADER)) return false;
  return (
    entry.create === 'summary' ||
    entry.record?.kind === 'summary' ||
    entry.record?.compaction_id !== undefined
  );
}

/**
 * The snapshot of a view. When the view already holds a snapshot (the window ran before),
 * that one is the starting point: its goal stays (the first user message may be gone by
 * now) and its actions and observations are continued with what came after it — messages
 * with a higher seq than the snapshot, which the engine stored after everything it covered.
 */
export function buildSnapshot(entries: readonly ViewEntry[]): ContextSnapshot {
  const body = entries.filter((e) => e.message.role !== 'system');
  const prevIndex = body.findLastIndex(isSnapshotEntry);
  const prev = prevIndex >= 0 ? parseSnapshot(body[prevIndex]!.message.content ?? '') : undefined;
  const prevSeq = prevIndex >= 0 ? entrySeq(body[prevIndex]!) : undefined;
  const messages = body.filter((e) => !isSnapshotEntry(e));
  const fresh =
    prevIndex < 0
      ? messages
      : body.filter((e, i) => {
          if (isSnapshotEntry(e)) return false;
          const seq = entrySeq(e);
          return prevSeq !== undefined && seq !== undefined ? seq > prevSeq : i > prevIndex;
        });

  const firstUser = messages.find((e) => e.message.role === 'user');
  const goal = prev?.goal || cut(oneLine(firstUser?.message.content ?? ''), MAX_GOAL_CHARS);

  const results = resultsById(fresh);
  const newActions = fresh.flatMap((e) =>
    (e.message.tool_calls ?? []).map((call) => actionLabel(call, results.get(call.id))),
  );
  const all = [...(prev?.completedActions ?? []), ...newActions];
  const listed = all.slice(-MAX_ACTIONS);
  const earlierActionCount = (prev?.earlierActionCount ?? 0) + all.length - listed.length;

  return {
    goal,
    completedActions: listed,
    currentPhase: phaseOf(messages, all.length > 0),
    keyObservations: observations(prev?.keyObservations ?? [], fresh),
    earlierActionCount,
  };
}

/**
 * completed: the last assistant message calls no tool and no user message follows it (a
 * user message after it is a new request). planning: no tool has run yet. Otherwise
 * executing.
 */
function phaseOf(messages: readonly ViewEntry[], anyAction: boolean): SnapshotPhase {
  const lastAssistant = messages.findLastIndex((e) => e.message.role === 'assistant');
  if (lastAssistant >= 0 && !messages[lastAssistant]!.message.tool_calls?.length) {
    const userAfter = messages.slice(lastAssistant + 1).some((e) => e.message.role === 'user');
    if (!userAfter) return 'completed';
  }
  return anyAction ? 'executing' : 'planning';
}

function resultsById(entries: readonly ViewEntry[]): Map<string, ViewEntry> {
  const map = new Map<string, ViewEntry>();
  for (const e of entries) {
    if (e.message.role === 'tool' && e.message.tool_call_id) map.set(e.message.tool_call_id, e);
  }
  return map;
}

function actionLabel(call: ToolCall, result: ViewEntry | undefined): string {
  const label = `${call.function.name}(${shortArgs(call.function.arguments)})`;
  return result && readsAsError(result.message.content ?? '') ? `${label} → error` : label;
}

/** `key=value, …` with each value and the whole cut short; unparsable arguments as they are. */
export function shortArgs(args: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return cut(oneLine(args), MAX_ARGS_CHARS);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return cut(oneLine(JSON.stringify(parsed) ?? ''), MAX_ARGS_CHARS);
  }
  const parts = Object.entries(parsed).map(
    ([k, v]) => `${k}=${cut(oneLine(JSON.stringify(v) ?? 'null'), MAX_ARG_VALUE_CHARS)}`,
  );
  return cut(parts.join(', '), MAX_ARGS_CHARS);
}

/**
 * Error lines of tool results (and of user messages, where people paste failures), then
 * the assistant's latest answers. Repeats are merged with a count; the newest are kept.
 */
function observations(previous: readonly string[], fresh: readonly ViewEntry[]): string[] {
  const found: string[] = [...previous];
  for (const e of fresh) {
    const m = e.message;
    if (m.role !== 'tool' && m.role !== 'user') continue;
    const text = m.content ?? '';
    if (!readsAsError(text)) continue;
    const who = m.role === 'tool' ? (m.tool_name ?? m.name ?? 'tool') : 'user';
    found.push(`${who} → ${cut(oneLine(errorLine(text)), MAX_ERROR_CHARS)}`);
  }
  const answers = fresh.filter(
    (e) =>
      e.message.role === 'assistant' &&
      !e.message.tool_calls?.length &&
      (e.message.content ?? '').trim() !== '',
  );
  for (const e of answers.slice(-MAX_CONCLUSIONS)) {
    found.push(`assistant: ${cut(oneLine(e.message.content ?? ''), MAX_CONCLUSION_CHARS)}`);
  }
  return mergeRepeats(found).slice(-MAX_OBSERVATIONS);
}

/** The line that says what went wrong: the first one that reads as an error, else the first. */
function errorLine(text: string): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return lines.find((l) => readsAsError(l)) ?? lines[0] ?? text;
}

const REPEAT_SUFFIX = / \((\d+) times\)$/;

/** Equal observations become one, at the place of the last, with `(N times)`. */
function mergeRepeats(items: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const item of items) {
    const m = REPEAT_SUFFIX.exec(item);
    const base = m ? item.slice(0, m.index) : item;
    counts.set(base, (counts.get(base) ?? 0) + (m ? Number(m[1]) : 1));
  }
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = items.length - 1; i >= 0; i--) {
    const m = REPEAT_SUFFIX.exec(items[i]!);
    const base = m ? items[i]!.slice(0, m.index) : items[i]!;
    if (seen.has(base)) continue;
    seen.add(base);
    const n = counts.get(base) ?? 1;
    out.push(n > 1 ? `${base} (${n} times)` : base);
  }
  return out.reverse();
}

/** The snapshot as the text of a user message (parseSnapshot reads it back). */
export function formatSnapshot(s: ContextSnapshot): string {
  const total = s.earlierActionCount + s.completedActions.length;
  const lines = [
    `${SNAPSHOT_HEADER} (older messages were left out of the context; this is what they established)`,
    `Goal: ${oneLine(s.goal) || '(unknown)'}`,
    `Phase: ${s.currentPhase}`,
  ];
  if (total === 0) lines.push('Actions: none yet');
  else {
    const earlier = s.earlierActionCount > 0 ? `; ${s.earlierActionCount} earlier not listed` : '';
    lines.push(`Actions (${total} in all${earlier}):`);
    for (const a of s.completedActions) lines.push(`- ${oneLine(a)}`);
  }
  if (s.keyObservations.length === 0) lines.push('Key observations: none');
  else {
    lines.push('Key observations:');
    for (const o of s.keyObservations) lines.push(`- ${oneLine(o)}`);
  }
  return lines.join('\n');
}

const ACTIONS_HEADER = /^Actions \((\d+) in all(?:; (\d+) earlier not listed)?\):$/;

/** A snapshot read back from formatSnapshot's text; undefined when the text is not one. */
export function parseSnapshot(withLedger: string): ContextSnapshot | undefined {
  if (!withLedger.startsWith(SNAPSHOT_HEADER)) return undefined;
  // The fact ledger under a snapshot is the fact extractor's to read.
  const text = splitLedger(withLedger).body;
  const s: ContextSnapshot = {
    goal: '',
    completedActions: [],
    currentPhase: 'executing',
    keyObservations: [],
    earlierActionCount: 0,
  };
  let list: string[] | undefined;
  for (const line of text.split('\n').slice(1)) {
    const header = ACTIONS_HEADER.exec(line);
    if (line.startsWith('Goal: ')) {
      const goal = line.slice('Goal: '.length);
      s.goal = goal === '(unknown)' ? '' : goal;
      list = undefined;
    } else if (line.startsWith('Phase: ')) {
      const phase = line.slice('Phase: '.length);
      if (phase === 'planning' || phase === 'executing' || phase === 'completed') {
        s.currentPhase = phase;
      }
      list = undefined;
    } else if (header) {
      s.earlierActionCount = Number(header[2] ?? 0);
      list = s.completedActions;
    } else if (line === 'Key observations:') {
      list = s.keyObservations;
    } else if (line.startsWith('- ') && list) {
      list.push(line.slice(2));
    } else {
      list = undefined;
    }
  }
  return s;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
