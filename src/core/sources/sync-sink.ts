import type { TokenUsage } from '../../shared/task-types';
import type { NewMessage } from '../store/message-store';
import type { NewToolCall } from '../store/tool-store';

/** The main conversation of a session file; other threads are its subagents. */
export const MAIN = 'main';

/** What a mapper learned about one thread of a session; merged field by field as it grows. */
export interface ThreadInfo {
  title?: string;
  prompt?: string;
  /** The first real request (slash commands, caveats, reminders skipped): titles the task. */
  request?: string;
  workdir?: string;
  model?: string;
  sessionId?: string;
  gitBranch?: string;
  /** The session's git remote (owner/repo of the task's repository). */
  gitRemote?: string;
  version?: string;
  firstTimestamp?: string;
  lastTimestamp?: string;
  /** Subagents: the agent's id and what started it. */
  agentId?: string;
  description?: string;
}

/**
 * Where a format's line mapper sends what a session's lines mean. Every call names the
 * thread (MAIN or a subagent key): the sync engine gives each thread its own task, created
 * on its first message so that a thread without messages never makes an empty task.
 */
export interface SyncSink {
  describe(thread: string, info: ThreadInfo): void;
  message(thread: string, message: NewMessage): void;
  tool(thread: string, call: NewToolCall): void;
  /** One LLM request and its usage; `calls` 0 adds usage the transcript gives apart from a reply. */
  llmCall(thread: string, usage?: Partial<TokenUsage>, calls?: number): void;
  /**
   * The agent compacted its own context: one summaries.jsonl record covering the thread's
   * messages since its previous compaction (as `cwb import`). Call before the summary message.
   */
  compaction(
    thread: string,
    input: { strategy: string; summary: string; extra?: Record<string, unknown> },
  ): void;
  /** A line that could not be used (kept out, counted in the file's notice). */
  skip(lineNo: number, reason: string): void;
}

/**
 * Reads one JSONL format line by line. State is plain JSON (saved with the offset after
 * every batch), so a sync can go on from any saved point in another process: the mapper
 * must produce the same calls for the same lines from the same state.
 */
export interface LineMapper {
  line(value: unknown, lineNo: number): void;
  /** End of a batch: write what is held back (an assistant response being assembled). */
  end(): void;
  save(): unknown;
}

export type CreateLineMapper = (saved: unknown, sink: SyncSink) => LineMapper;
