import type { TokenUsage } from '../../shared/task-types';
import type { NewMessage } from '../store/message-store';
import type { NewToolCall } from '../store/tool-store';
import type { CompactionInput } from './transcript-writer';

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
  /** A session that is another session's subagent (Codex's thread_spawn): the parent's session id. */
  parentSessionId?: string;
}

/**
 * Where a format's mapper sends what a session's entries mean, one thread at a time (MAIN or
 * a subagent key). The same mapper feeds `cwb import` (src/core/import: a TranscriptWriter
 * per thread) and live sync (src/core/sources: one task per thread, created on its first
 * message), so both give the same messages, tool records, LLM calls and compactions.
 */
export interface TranscriptSink {
  /**
   * What the session says about a thread (live sync keeps the task's row up to date). The
   * first value given of each field is kept, but `lastTimestamp` and `title` take the last:
   * a mapper need give each other field once.
   */
  describe(thread: string, info: ThreadInfo): void;
  /**
   * `pinned`: the message stays in the context whatever the agent compacts later (Codex's
   * instructions, its system prompt).
   */
  message(thread: string, message: NewMessage, options?: { pinned?: boolean }): void;
  tool(thread: string, call: NewToolCall): void;
  /** One LLM request and its usage; `calls` 0 adds usage the transcript gives apart from a reply. */
  llmCall(thread: string, usage?: Partial<TokenUsage>, calls?: number): void;
  /**
   * The agent compacted its own context: one summaries.jsonl record covering the thread's
   * messages since its previous compaction. Call before the summary message.
   */
  compaction(thread: string, input: CompactionInput): void;
  /** An entry that could not be used: reported with its line, the rest goes on. */
  skip(lineNo: number, reason: string): void;
  /** Understood but deliberately not imported (counted by kind in the import report). */
  ignore(what: string): void;
}

/**
 * Where a source entry sits in its file: byte offset and length of its line (without the
 * newline), or for a folder of one file per event, the event's number (`offset`, `bytes` 0).
 * A mapper keeps the places of the entries it holds back so the next sync reads them again.
 */
export interface EntryRef {
  offset: number;
  bytes: number;
  lineNo: number;
}

/**
 * Reads one session entry by entry (a JSONL line, an event file). State is plain JSON,
 * saved with the file's offset after every batch, so a sync can go on from any saved point
 * in another process: the mapper must produce the same calls for the same entries from the
 * same state.
 *
 * The last reply of a growing file may be incomplete (Claude Code writes one entry per
 * content block of a response). A mapper holds such entries back: `end(false)` returns their
 * places and leaves them out of its state; the next batch starts with them again.
 * `end(true)` is the end of the file, or a file that has been still for a while: everything
 * held is written and calls still without a result are recorded as such.
 */
export interface EntryMapper {
  line(value: unknown, lineNo: number, ref: EntryRef): void;
  end(final: boolean): {
    /** Entries held back, in file order (empty when `final`). */
    held: EntryRef[];
    /** Something waits for the file to be still (held entries, calls without a result). */
    waiting: boolean;
  };
  save(): unknown;
}

/** `source`: the file (or events folder) being read. */
export type CreateEntryMapper = (
  saved: unknown,
  sink: TranscriptSink,
  source: { path: string },
) => EntryMapper;
