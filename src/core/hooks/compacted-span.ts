import type { SpanMessage } from '../facts/span-facts';
import { isTooLong } from '../jsonl/line-entry';
import { readLinesSync } from '../jsonl/line-reader';

/**
 * What an agent's last compaction replaced, read off the agent's own session file: the
 * messages it took out of the context (from the compaction before it, or the start), and
 * the text it put in their place. Every agent's reader (Claude Code, Codex) yields this.
 */
export interface CompactedSpan {
  /** The messages the last compaction replaced, oldest first, in our message shape. */
  span: SpanMessage[];
  /** What the agent's new context says in their place (its summary); '' when not written yet. */
  summary: string;
  /** How many compactions the file records; the span is the last one's. */
  compactions: number;
  /** The messages after the last compaction (its summary first): what the agent did next. */
  after: SpanMessage[];
}

export interface SpanLimits {
  /** A longer line (a pasted file, an image) is skipped, never held. */
  maxLineBytes: number;
  /** Date.now() past which reading gives up: a hook must never hold the agent up. */
  deadline: number;
}

export class HookTimeout extends Error {
  constructor() {
    super('the transcript took too long to read');
  }
}

/** Checked every 256 lines: reading the clock per line would cost more than the parse. */
export function checkDeadline(lineNo: number, deadline: number): void {
  if ((lineNo & 255) === 0 && Date.now() > deadline) throw new HookTimeout();
}

/** What one line of an agent's session file means for the span; undefined: nothing. */
export type SpanLine =
  /** A compaction: what came before it is replaced; `summary` is what stands in its place. */
  | { kind: 'compaction'; summary: string }
  /** The summary written as an entry of its own after the compaction (Claude Code). */
  | { kind: 'summary'; text: string }
  | { kind: 'messages'; messages: SpanMessage[] }
  | undefined;

/**
 * The last compaction's span of an agent's JSONL session file, streamed: `readLine` says
 * what each line is (each agent parses its own lines by hand, not through the importer's
 * zod schemas: this runs in a hook that must answer in well under a second).
 */
export function readCompactedSpan(
  file: string,
  limits: SpanLimits,
  readLine: (text: string) => SpanLine,
): CompactedSpan {
  let current: SpanMessage[] = [];
  let replaced: SpanMessage[] = [];
  let summary = '';
  let compactions = 0;
  for (const entry of readLinesSync(file, { maxLineBytes: limits.maxLineBytes })) {
    checkDeadline(entry.lineNo, limits.deadline);
    if (isTooLong(entry)) continue;
    const line = readLine(entry.text);
    if (line?.kind === 'compaction') {
      compactions++;
      replaced = current;
      current = [];
      summary = line.summary;
    } else if (line?.kind === 'summary') {
      // The newest summary is what the new context holds; it is also part of what the next
      // compaction will replace.
      if (compactions > 0 && current.length === 0) summary = line.text;
      current.push({ message: { role: 'user', content: line.text }, kind: 'summary' });
    } else if (line) current.push(...line.messages);
  }
  return { span: compactions > 0 ? replaced : [], summary, compactions, after: current };
}
