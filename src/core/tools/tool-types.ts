import type { z } from 'zod';
import type { MessageStore } from '../store/message-store';
import type { PlanningStore } from '../store/planning-store';
import type { ToolOutputStore } from '../store/tool-output-store';

/** The OpenAI function-tool shape sent in a chat completions request's `tools` array. */
export interface ToolDefinition {
  type: 'function';
  function: {
    name: string;
    description: string;
    /** A JSON Schema object describing the arguments. */
    parameters: object;
  };
}

/** What a tool may touch while it runs: one task's working directory and stores. */
export interface ToolContext {
  /** Absolute path of the task's working directory; every path argument is confined to it. */
  workdir: string;
  toolOutputs: ToolOutputStore;
  planning: PlanningStore;
  /**
   * The task's history (messages.jsonl), for history_recall. Only its files are used: the
   * tool reads them through its own read-only index and never appends.
   */
  messages: MessageStore;
  /** Config `tools.run_command`: run_command refuses to run when false. */
  allowRunCommand: boolean;
  /** run_command's timeout when the model gives none (default 60 s, at most 10 min). */
  defaultTimeoutMs?: number;
  /** Cancels a running tool (run_command kills its process group; grep stops walking). */
  signal?: AbortSignal;
  /**
   * The task's secret values (API keys of the config and of the environment, `${VAR}`
   * values): environment variables holding one of them are removed from run_command's
   * environment whatever their name, and every tool result is scrubbed of them
   * (tool-secrets.ts).
   */
  secretValues?: readonly string[];
  /**
   * The environment of every child a tool starts (command-env.ts `commandEnv`: allow-listed
   * plus `tools.env_passthrough`); default: the allow-listed part of process.env.
   */
  childEnv?: NodeJS.ProcessEnv;
}

export interface ToolResult {
  /** The text the model sees as the tool message. */
  content: string;
  status: 'success' | 'error';
  /** One line saying what went wrong, for tools.jsonl and the UI. */
  error?: string;
  /** Set when the whole output was saved to tool_outputs/ and `content` is a shortened view. */
  outputRef?: string;
}

/** How a tool is written: its definition for the model, its argument schema and its body. */
export interface ToolSpec<Args> {
  definition: ToolDefinition;
  args: z.ZodType<Args>;
  /**
   * False for tools that keep their own output small and must not have it moved to the tool
   * output cache (reading the cache back must never produce another cache entry).
   */
  spillLargeOutput?: boolean;
  execute(args: Args, ctx: ToolContext): ToolResult | Promise<ToolResult>;
}

export function success(content: string): ToolResult {
  return { content, status: 'success' };
}

export function failure(message: string): ToolResult {
  return { content: `Error: ${message}`, status: 'error', error: message };
}
