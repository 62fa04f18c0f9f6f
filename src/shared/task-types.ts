/**
 * The data model shared by every side (engine, hosts, UI). Plain types only: this folder
 * imports nothing from Node, Electron or the DOM.
 */

export const TASK_STATUSES = ['running', 'paused', 'completed', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The folder under the contexts root that holds a task in this status (failed tasks live in completed/). */
export type StatusFolder = 'running' | 'paused' | 'completed';

/** Identifies "the same work" across runs (seed 000 §3.1 task_key, used for inheritance). */
export interface TaskKey {
  task_source: string;
  owner: string;
  repo: string;
  task_type: string;
  task_id: string;
  user: string;
}

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';

/** An OpenAI-style tool call carried by an assistant message. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** One line of current.jsonl: what is sent to the model (OpenAI-compatible). */
export interface CurrentMessage {
  role: MessageRole;
  content: string | null;
  tool_name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
}

/** Token usage reported by a provider for one LLM call (seed 002 §2.3). */
export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_tokens: number;
  cache_read_tokens: number;
  total_tokens: number;
}

/** What a message is, beyond its role: a compaction summary or marker reads differently in the UI. */
export type MessageKind = 'message' | 'summary' | 'truncation-marker' | 'inheritance';

/** One line of messages.jsonl: the append-only log of every message (seeds 000 §3.2, 001 §11.1). */
export interface MessageRecord extends CurrentMessage {
  seq: number;
  timestamp: string;
  /** Seed estimate: chars/4, or chars/2 when at least half the characters are Japanese. */
  tokens: number;
  /**
   * Which counter produced `tokens`: the seed estimate for every line the app writes; absent
   * on lines written before the field existed (also estimates).
   */
  token_counter?: 'estimate' | 'o200k' | 'usage';
  /**
   * The same content counted with the o200k tokenizer, on lines written before counting
   * moved off the append path (issue #17); exact counts are now made where shown.
   */
  tokens_o200k?: number;
  kind?: MessageKind;
  usage?: TokenUsage;
  /** Set on messages a compaction created (summaries, markers): they enter the context only through that compaction's plan. */
  compaction_id?: number;
  /** Full tool output kept in tool_outputs/ (seed 002 ToolOutputRef). */
  output_ref?: string;
  /** In the history but never in the model's context by itself (reasoning, pre-compaction messages of an import). */
  history_only?: true;
  /**
   * The model that wrote this reply, where the session records one per reply (another
   * agent's session that changed model mid-way); absent when it is the task's model.
   */
  model?: string;
}

/** One line of summaries.jsonl: the union of seed 000 §3.5 and seed 001 §11.3. */
export interface SummaryRecord {
  id: number;
  strategy: string;
  start_seq: number;
  end_seq: number;
  summary: string;
  original_tokens: number;
  summary_tokens: number;
  ratio: number;
  compressed_message_count: number;
  tokens_saved: number;
  timestamp: string;
  created_at: string;
  [extra: string]: unknown;
}

/** One line of tools.jsonl: union of seed 000 §3.6 and seed 001 §11.4. */
export interface ToolRecord {
  seq: number;
  tool: string;
  tool_name: string;
  args: unknown;
  arguments: unknown;
  /** Null when `result_seq` is set: the result is that message's content, not written twice. */
  result: string | null;
  /** seq of the tool message in messages.jsonl whose content is the result (issue #17). */
  result_seq?: number;
  status: 'success' | 'error';
  error: string | null;
  duration_ms: number;
  timestamp: string;
  tool_call_id?: string;
}

/** One line of planning.jsonl (seed 001 §11.5). */
export interface PlanningEntry {
  id: number;
  plan_type: string;
  plan_content: string;
  created_at: string;
}

/** A row of tasks.db as the rest of the app sees it. */
export interface TaskRow {
  uuid: string;
  status: TaskStatus;
  title: string | null;
  prompt: string | null;
  workdir: string | null;
  parent_uuid: string | null;
  task_source: string;
  /**
   * The agent that wrote an imported session ('claude-code', 'codex', 'gemini-cli',
   * 'openhands', 'cline', 'roo-code', 'aider', 'swe-agent', 'openai'); '' for our own tasks.
   * Optional only because rows built by hand (archives of older versions) may lack it.
   */
  agent?: string;
  /** The git branch an imported session ran on, when its transcript names one. */
  git_branch?: string | null;
  owner: string;
  repo: string;
  repository: string;
  task_type: string;
  task_id: string;
  user: string | null;
  created_at: string;
  started_at: string | null;
  updated_at: string;
  completed_at: string | null;
  process_id: number | null;
  /** seed 000: the host of the process that last ran the task. */
  hostname: string | null;
  /**
   * The host holding the task: in a fleet's PostgreSQL index the host whose contexts
   * folder has it (the only one that writes it); in tasks.db, `hostname` (one host's
   * index). Optional only because rows built by hand (archives, tests) may lack it.
   */
  host?: string | null;
  llm_provider: string | null;
  model: string | null;
  context_length: number | null;
  llm_call_count: number;
  tool_call_count: number;
  input_tokens: number;
  output_tokens: number;
  cache_creation_tokens: number;
  cache_read_tokens: number;
  total_tokens: number;
  compression_count: number;
  total_messages: number;
  total_summaries: number;
  total_tool_calls: number;
  final_token_count: number | null;
  final_message_count: number | null;
  error_message: string | null;
  metadata: string | null;
  /** A pending request to the task's process: pause, stop or compact. */
  control: string | null;
}
