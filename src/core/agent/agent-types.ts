import type { CurrentMessage, TokenUsage, ToolCall } from '../../shared/task-types';
import type { ToolDefinition } from '../llm/tool-definition';

/** The slice of an LLM client the agent loop needs (src/core/llm implements it). */
export interface ChatClient {
  readonly model: string;
  chat(request: {
    currentPath: string;
    workDir: string;
    tools?: readonly ToolSpec[];
    extraMessages?: CurrentMessage[];
    signal?: AbortSignal;
    onDelta?: (text: string) => void;
  }): Promise<ChatResponse>;
}

export interface ChatResponse {
  content: string | null;
  tool_calls?: ToolCall[];
  usage?: TokenUsage;
  finish_reason?: string;
}

/** An OpenAI function-tool definition, as sent to the model. */
export type ToolSpec = ToolDefinition;

export interface ToolOutcome {
  content: string;
  status: 'success' | 'error';
  error?: string;
}

export type ToolRunner = (
  name: string,
  argumentsJson: string,
  signal: AbortSignal,
) => Promise<ToolOutcome>;

export type CompactionReason =
  'after-llm' | 'after-tools' | 'final' | 'context-length' | 'requested';

/** Compaction as the loop sees it (the strategies live in src/core/compaction). */
export interface Compactor {
  /** Compacts when the context needs it (or always, for 'context-length' and 'requested'). */
  maybeCompact(
    reason: CompactionReason,
  ): Promise<{ compacted: boolean; tokensBefore: number; tokensAfter: number }>;
}

/** Requests from outside (host messages, `cwb pause`): read between steps. */
export interface ControlState {
  pauseRequested(): boolean;
  compactRequested(): boolean;
  clearCompactRequest(): void;
  /** Aborted when the task must stop now (cancels an LLM call or tool in flight). */
  readonly stopSignal: AbortSignal;
}

export type AgentOutcome =
  | { kind: 'completed'; turns: number }
  | { kind: 'paused'; turns: number }
  | { kind: 'stopped'; turns: number }
  | { kind: 'max-turns'; turns: number };
