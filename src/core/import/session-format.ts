/**
 * The per-format parse interface shared by `cwb import` and live sources (src/core/sources).
 *
 * A format module turns one session file into a stream of events: the session's metadata
 * (as soon as it is known, possibly refined later) and its messages, each with a key that is
 * stable across re-reads of the same file. A sync that has already stored keys up to some
 * point skips them; an importer writes every message. Parsing never touches the store.
 *
 * Keys: JSONL formats use `L<line>` (1-based line number); whole-document formats use the
 * agent's own message id where it has one (`gemini:<id>`, `openhands:<event id>`) or the
 * index in the document (`m<index>` / `m<index>.<part>`), which is stable because those
 * agents only append to their lists and rewrite the file whole (Cline/Roo, Gemini CLI);
 * Aider's markdown uses `o<byte offset>` of the block that starts the message.
 */
import type { MessageRole, TokenUsage, ToolCall } from '../../shared/task-types';
import type { CompactionInput } from './agent-compaction';

export { AGENTS, AGENT_LABELS, type AgentId } from '../../shared/agents';
import type { AgentId } from '../../shared/agents';

/** What a session says about itself. Every field is optional: formats differ. */
export interface SessionMeta {
  agent: AgentId;
  /** The agent's own session/task id. */
  sessionId?: string;
  /** The agent's own title or summary of the session (preferred to the first request). */
  title?: string;
  /** The first real user request (slash commands, caveats and reminders skipped). */
  firstRequest?: string;
  cwd?: string;
  gitBranch?: string;
  /** e.g. `https://github.com/owner/repo.git` or `git@github.com:owner/repo.git`. */
  gitRemote?: string;
  model?: string;
  /** ISO times; the file's birth/modification time stands in where the format has none. */
  startedAt?: string;
  updatedAt?: string;
  endedAt?: string;
  /** A sub-agent's session (Gemini CLI's `kind: "subagent"` chats): its parent's session id. */
  parentSessionId?: string;
  /** A sub-agent's task as its parent described it (Copilot CLI's `task` call): titles it. */
  description?: string;
  /** Free-form extras kept in metadata.json's source (small values only). */
  extra?: Record<string, unknown>;
}

/** One message of the session, in our own message shape. */
export interface SessionMessage {
  role: MessageRole;
  content: string | null;
  /** Assistant tool calls; each later answered by a `tool` message with the same id. */
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  tool_name?: string;
  name?: string;
  /** A tool result that reports failure. */
  isError?: boolean;
  /** History-only (reasoning): kept in messages.jsonl, never sent back. */
  historyOnly?: boolean;
  timestamp?: string;
}

export type SessionEvent =
  /**
   * Starts a session: every file yields one before its first message. A file that holds
   * several sessions (Aider's history) yields one per session; `key` is stable like message keys.
   */
  | { kind: 'session'; key: string; meta: SessionMeta }
  /** Refines the current session's metadata (e.g. its end time, known only at the end). */
  | { kind: 'meta'; meta: Partial<SessionMeta> }
  | {
      kind: 'message';
      /** Stable across re-reads of the same file (see the file comment). */
      key: string;
      message: SessionMessage;
      /** Stays in the context whatever the agent compacts later (its system prompt). */
      pinned?: boolean;
      /** This message is the reply of one LLM request (counts an LLM call). */
      llmCall?: boolean;
      /** Provider usage of that request, when the transcript records it. */
      usage?: Partial<TokenUsage>;
      model?: string;
    }
  /** Provider usage the session records apart from any reply (a run's totals): no LLM call. */
  | { kind: 'usage'; key: string; usage: Partial<TokenUsage> }
  /**
   * The agent compacted its own context here (agent-compaction.ts): its new context is
   * written after the messages so far and one summaries.jsonl record covers them.
   */
  | { kind: 'compaction'; key: string; compaction: CompactionInput }
  /** Something that could not be used: reported with its place, the rest goes on. */
  | { kind: 'skip'; key: string; where: string; reason: string }
  /** Understood but deliberately not imported (counted by kind in the report). */
  | { kind: 'ignore'; key: string; what: string };

export interface SessionParseOptions {
  /** Whole-document formats: refuse files larger than this. */
  maxJsonBytes?: number;
  /**
   * The file is still being written (a live sync before it went still): a format whose last
   * reply changes in place (Gemini CLI adds its tool calls and results) leaves it out.
   */
  growing?: boolean;
  /**
   * A live sync: a store read beside the file (Cline's sessions.db) that another program is
   * writing right now throws StoreUnavailable, so the sync is retried later with a notice,
   * instead of reading the session without it (as `cwb import` does).
   */
  retryBusy?: boolean;
}

/**
 * A session file format. `sniff` looks at a parsed JSON document (or, for text formats, the
 * first KiB of the file) and says whether this format claims it; `parse` yields its events.
 */
export interface SessionFormat {
  readonly agent: AgentId;
  /** How the file is read: one JSON document, or text (markdown, streamed). */
  readonly input: 'document' | 'text' | 'database';
  /**
   * True when this format claims the input: the parsed document for `document` formats, the
   * file's first 4 KiB (as text) plus its name for `text` formats. Never throws.
   */
  sniff(input: unknown, fileName: string): boolean;
  /** The events of one file; `doc` is the parsed document when the caller has it already. */
  parse(file: string, doc?: unknown, options?: SessionParseOptions): AsyncIterable<SessionEvent>;
}
