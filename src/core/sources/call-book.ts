import type { TokenUsage } from '../../shared/task-types';
import type { NewMessage } from '../store/message-store';
import type { SessionMessage } from '../import/session-format';
import { withTotal } from '../import/session-import';
import { normalizeTimestamp } from '../import/text';
import { answeredCall, unansweredCall, type ToolCallStart } from '../import/transcript-writer';
import type { SyncSink } from './sync-sink';

const MAX_CLOSED = 200;

/**
 * Tool calls of a session read as SessionFormat messages (src/core/import/session-format.ts),
 * paired with their results by id, first in first out, into tools.jsonl records as
 * `cwb import` pairs them (TranscriptWriter). A live session differs in one way: a call may
 * still get its result. So calls the agent moved on from (a later reply came) are recorded
 * as unanswered when that reply is synced, those of the last reply once the file has been
 * still (`closeAll`), and a result that comes after all is written as its message only —
 * `closed` remembers which calls were recorded that way.
 */
export class CallBook {
  readonly calls = new Map<string, ToolCallStart[]>();
  private readonly closed: Set<string>;

  /** `closed`: a set shared with other books (a document's sessions each have their own calls). */
  constructor(
    saved?: { calls?: Record<string, ToolCallStart[]>; closed?: string[] },
    closed?: Set<string>,
  ) {
    this.closed = closed ?? new Set(saved?.closed ?? []);
    for (const [id, queue] of Object.entries(saved?.calls ?? {})) this.calls.set(id, [...queue]);
  }

  /**
   * An assistant message: the calls before it still without a result are unanswered
   * (recorded when `record`: a message synced before was recorded with them), and its own
   * calls wait for theirs.
   */
  reply(sink: SyncSink, thread: string, m: SessionMessage, record: boolean): void {
    if (record) this.closeAll(sink, thread);
    this.calls.clear();
    const at = normalizeTimestamp(m.timestamp);
    for (const call of m.tool_calls ?? []) {
      const start: ToolCallStart = {
        id: call.id,
        name: call.function.name,
        args: parseArgs(call.function.arguments),
        ...(at !== undefined && { timestamp: at }),
      };
      const queue = this.calls.get(call.id);
      if (queue) queue.push(start);
      else this.calls.set(call.id, [start]);
    }
  }

  /**
   * A tool message: takes the call it answers and, when `record`, writes the pair to
   * tools.jsonl — unless the call was recorded without a result already.
   */
  result(
    sink: SyncSink,
    thread: string,
    m: SessionMessage,
    record: boolean,
  ): ToolCallStart | undefined {
    const id = m.tool_call_id ?? '';
    const queue = this.calls.get(id);
    const called = queue?.shift();
    if (queue && queue.length === 0) this.calls.delete(id);
    if (!record) return called;
    if (this.closed.has(id)) {
      this.closed.delete(id);
      return called;
    }
    const at = normalizeTimestamp(m.timestamp);
    sink.tool(
      thread,
      answeredCall(called, {
        id,
        content: m.content,
        ...(m.isError === true && { isError: true }),
        ...(at !== undefined && { timestamp: at }),
      }),
    );
    return called;
  }

  /** Calls still without a result are recorded as such, once each. */
  closeAll(sink: SyncSink, thread: string): void {
    for (const queue of this.calls.values())
      for (const start of queue) {
        if (this.closed.has(start.id)) continue;
        this.closed.add(start.id);
        sink.tool(thread, unansweredCall(start));
      }
  }

  /** Calls wait for a result that was not recorded missing yet. */
  get waiting(): boolean {
    return [...this.calls.values()].some((q) => q.some((c) => !this.closed.has(c.id)));
  }

  /** The calls recorded without a result, for the saved state (the newest ones). */
  closedIds(): string[] {
    return [...this.closed].slice(-MAX_CLOSED);
  }

  save(): { calls: Record<string, ToolCallStart[]>; closed?: string[] } {
    const closed = this.closedIds();
    return {
      calls: Object.fromEntries(this.calls),
      ...(closed.length > 0 && { closed }),
    };
  }
}

/** A SessionFormat message as stored (the tool it answers named by the caller). */
export function storedMessage(m: SessionMessage): NewMessage {
  const at = normalizeTimestamp(m.timestamp);
  return {
    role: m.role,
    content: m.content,
    ...(m.tool_calls && m.tool_calls.length > 0 && { tool_calls: m.tool_calls }),
    ...(m.tool_call_id !== undefined && { tool_call_id: m.tool_call_id }),
    ...(m.tool_name !== undefined && { tool_name: m.tool_name }),
    ...(m.name !== undefined && { name: m.name }),
    ...(m.historyOnly && { historyOnly: true }),
    ...(at !== undefined && { timestamp: at }),
  };
}

/** The LLM call a message stands for, and its usage (as `cwb import` counts them). */
export function countCall(
  sink: SyncSink,
  thread: string,
  event: { llmCall?: boolean; usage?: Partial<TokenUsage> },
): void {
  if (event.llmCall) sink.llmCall(thread, event.usage && withTotal(event.usage));
  else if (event.usage) sink.llmCall(thread, withTotal(event.usage), 0);
}

function parseArgs(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}
