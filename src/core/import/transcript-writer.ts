import { HourlyUsage } from '../usage/usage-hours';
import type { MessageRecord, TokenUsage } from '../../shared/task-types';
import type { TaskContextManager } from '../store/task-context-manager';
import type { NewMessage } from '../store/message-store';
import type { NewToolCall } from '../store/tool-store';
import type { ImportedCounters } from '../store/task-import';
import {
  agentCompactionRecord,
  newAgentContext,
  noteMessage,
  type CompactionInput,
} from './agent-compaction';
import { clip, durationBetween } from './text';

/** A tool call seen in a transcript, waiting for its result. */
export interface ToolCallStart {
  id: string;
  name: string;
  args: unknown;
  timestamp?: string;
}

export interface ToolCallResult {
  id: string;
  content: string | null;
  isError?: boolean;
  timestamp?: string;
}

export type { CompactionInput } from './agent-compaction';

/**
 * Tools whose call ends the task: the agent writes no result after them (Cline and Roo
 * Code's attempt_completion when the user accepts), so a missing result is not a failure.
 */
const TASK_ENDING_TOOLS: ReadonlySet<string> = new Set(['attempt_completion']);

/** `error` of tools.jsonl holds the start of a failed result; the whole result stays in `result`. */
const ERROR_CHARS = 2000;

/**
 * Writes one imported task through its stores and keeps what only the importer knows: LLM
 * calls and provider usage, and tool calls waiting for their results. Every tool call
 * becomes one tools.jsonl record — paired with its result by id (first in, first out, as
 * some transcripts reuse ids), or marked as an error when the transcript has no result —
 * and every result without a call becomes one too, so tasks.db's tool-call count is the
 * number of tool executions the transcript shows.
 */
export class TranscriptWriter {
  private readonly pending = new Map<string, ToolCallStart[]>();
  private llmCalls = 0;
  private readonly usage: TokenUsage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_tokens: 0,
    cache_read_tokens: 0,
    total_tokens: 0,
  };
  private usageSeen = false;
  /** The agent's context as its own compactions left it (agent-compaction.ts). */
  private readonly context = newAgentContext();
  /** The usage by the hour of its messages (the usage report's days). */
  private readonly hourly = new HourlyUsage();
  private lastSeq = 0;
  private allTokens = 0;

  constructor(readonly task: TaskContextManager) {}

  get messageCount(): number {
    return this.lastSeq;
  }

  /** `pinned`: stays in the context whatever the agent compacts later (its system prompt). */
  append(message: NewMessage, options?: { pinned?: boolean }): MessageRecord {
    const record = this.written(message);
    noteMessage(this.context, record.seq, message, record.tokens, options?.pinned === true);
    return record;
  }

  private written(message: NewMessage): MessageRecord {
    const record = this.task.messages.append(message);
    this.hourly.message(record.timestamp);
    this.lastSeq = record.seq;
    this.allTokens += record.tokens;
    return record;
  }

  startToolCall(call: ToolCallStart): void {
    const queue = this.pending.get(call.id);
    if (queue) queue.push(call);
    else this.pending.set(call.id, [call]);
  }

  /** Records the execution in tools.jsonl; returns the tool's name when the call was seen. */
  finishToolCall(result: ToolCallResult): string | undefined {
    const queue = this.pending.get(result.id);
    const call = queue?.shift();
    if (queue && queue.length === 0) this.pending.delete(result.id);
    this.task.tools.add(answeredCall(call, result));
    return call?.name;
  }

  /** A tools.jsonl record a mapper paired itself (src/core/import/transcript-sink.ts). */
  addTool(call: NewToolCall): void {
    this.task.tools.add(call);
  }

  /** A tool execution that has no call/result pair in the messages (SWE-agent trajectory steps). */
  recordTool(input: {
    tool: string;
    args: unknown;
    result: string | null;
    isError?: boolean;
    durationMs?: number;
    toolCallId?: string;
  }): void {
    const isError = input.isError === true;
    this.task.tools.add({
      tool: input.tool,
      args: input.args,
      result: input.result,
      status: isError ? 'error' : 'success',
      error: isError ? clip(input.result ?? 'error', ERROR_CHARS) : null,
      duration_ms: input.durationMs ?? 0,
      ...(input.toolCallId !== undefined && { tool_call_id: input.toolCallId }),
    });
  }

  countLlmCall(n = 1): void {
    this.llmCalls += n;
  }

  addUsage(usage: Partial<TokenUsage>): void {
    this.usageSeen = true;
    this.hourly.usage(usage);
    for (const key of Object.keys(this.usage) as (keyof TokenUsage)[]) {
      this.usage[key] += usage[key] ?? 0;
    }
  }

  /**
   * A compaction the agent made itself: its new context (summary, kept and re-attached
   * messages) is written, then one summaries.jsonl record covering the messages since the
   * previous one, whose plan is that new context (agent-compaction.ts).
   */
  compaction(input: CompactionInput): void {
    const end = this.lastSeq;
    const created = (input.messages ?? []).map((m) => {
      const record = this.written(m);
      return { seq: record.seq, tokens: record.tokens };
    });
    this.task.summaries.add(agentCompactionRecord(this.context, input, end, created));
  }

  /**
   * Calls that never got a result become error records — except a call that ends the task
   * (Cline's attempt_completion), which no agent answers; returns the counters for tasks.db.
   */
  finish(): ImportedCounters {
    for (const queue of this.pending.values()) {
      for (const call of queue) this.task.tools.add(unansweredCall(call));
    }
    this.pending.clear();
    return {
      llm_calls: this.llmCalls,
      estimated_tokens: this.allTokens,
      ...(this.usageSeen && { usage: { ...this.usage }, usage_hours: this.hourly.take() }),
    };
  }
}

/** The tools.jsonl record of a call and the result that answers it (the call unknown: `unknown`). */
export function answeredCall(call: ToolCallStart | undefined, result: ToolCallResult): NewToolCall {
  const isError = result.isError === true;
  const timestamp = result.timestamp ?? call?.timestamp;
  return {
    tool: call?.name ?? 'unknown',
    args: call?.args ?? null,
    result: result.content,
    status: isError ? 'error' : 'success',
    error: isError ? clip(result.content ?? 'error', ERROR_CHARS) : null,
    duration_ms: durationBetween(call?.timestamp, result.timestamp),
    tool_call_id: result.id,
    ...(timestamp !== undefined && { timestamp }),
  };
}

/**
 * The record of a call the transcript never answered: failed — except a call that ends the
 * task (Cline's attempt_completion), which no agent answers.
 */
export function unansweredCall(call: ToolCallStart): NewToolCall {
  const ends = TASK_ENDING_TOOLS.has(call.name);
  return {
    tool: call.name,
    args: call.args,
    result: null,
    status: ends ? 'success' : 'error',
    error: ends ? null : 'no result in the transcript',
    duration_ms: 0,
    tool_call_id: call.id,
    ...(call.timestamp !== undefined && { timestamp: call.timestamp }),
  };
}

/** Provider usage with total_tokens filled in as everything read and written. */
export function usageWithTotal(usage: Omit<TokenUsage, 'total_tokens'>): TokenUsage {
  return {
    ...usage,
    total_tokens:
      usage.input_tokens +
      usage.output_tokens +
      usage.cache_creation_tokens +
      usage.cache_read_tokens,
  };
}
