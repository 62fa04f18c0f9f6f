import type { SpanMessage } from '../facts/span-facts';

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
