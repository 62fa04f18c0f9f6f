import type { CurrentMessage, MessageRole, ToolCall } from '../../shared/task-types';
import type { LlmProvider } from '../config/app-config';
import { isObject, isPlainToolCall } from './json-shape';

/**
 * How one current.jsonl line (OpenAI-compatible) is sent to each provider. Pure and
 * per-message, so request.json can be built one line at a time and tests can compute the
 * expected body from the same function.
 */

/** A message of OpenAI's chat completions API (also LM Studio's /v1). */
export interface OpenAiMessage {
  role: MessageRole;
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
}

/** A tool call as Ollama's /api/chat takes it: arguments are an object, not a string. */
export interface OllamaToolCall {
  function: { name: string; arguments: Record<string, unknown> };
}

/** A message of Ollama's native /api/chat. */
export interface OllamaMessage {
  role: MessageRole;
  content: string;
  tool_calls?: OllamaToolCall[];
  tool_name?: string;
  tool_call_id?: string;
}

export type ProviderMessage = OpenAiMessage | OllamaMessage;

/**
 * Key under which Ollama gets arguments that were stored as text that is not a JSON object
 * (a model's broken JSON, or an imported transcript). Ollama refuses non-object arguments,
 * and dropping them would hide from the model what it actually sent before.
 */
export const RAW_ARGUMENTS_KEY = '_raw_arguments';

export function toProviderMessage(provider: 'ollama', msg: CurrentMessage): OllamaMessage;
export function toProviderMessage(
  provider: 'openai' | 'lmstudio',
  msg: CurrentMessage,
): OpenAiMessage;
export function toProviderMessage(provider: LlmProvider, msg: CurrentMessage): ProviderMessage;
export function toProviderMessage(provider: LlmProvider, msg: CurrentMessage): ProviderMessage {
  return provider === 'ollama' ? toOllama(msg) : toOpenAi(msg);
}

function toOpenAi(msg: CurrentMessage): OpenAiMessage {
  const calls = msg.tool_calls && msg.tool_calls.length > 0 ? msg.tool_calls : undefined;
  // OpenAI accepts null content only on an assistant message that carries tool calls;
  // anywhere else it answers 400, so null becomes the empty text it means.
  const content = msg.content === null && !(msg.role === 'assistant' && calls) ? '' : msg.content;
  const out: OpenAiMessage = { role: msg.role, content };
  // An empty tool_calls array is rejected by OpenAI ("[] is too short").
  if (calls)
    out.tool_calls = calls.every((call) => isPlainToolCall(call))
      ? calls
      : calls.map(normalizeToolCall);
  if (msg.tool_call_id !== undefined) out.tool_call_id = msg.tool_call_id;
  if (msg.name !== undefined) out.name = msg.name;
  // tool_name is our (seed 000) field, not OpenAI's: the API would reject it.
  return out;
}

function normalizeToolCall(call: ToolCall): ToolCall {
  const args: unknown = call.function.arguments;
  return {
    id: call.id,
    type: 'function',
    function: {
      name: call.function.name,
      // Imported transcripts sometimes hold arguments as an object; OpenAI wants a string.
      arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
    },
  };
}

function toOllama(msg: CurrentMessage): OllamaMessage {
  const out: OllamaMessage = { role: msg.role, content: msg.content ?? '' };
  if (msg.tool_calls && msg.tool_calls.length > 0) {
    out.tool_calls = msg.tool_calls.map((call) => ({
      function: { name: call.function.name, arguments: ollamaArguments(call.function.arguments) },
    }));
  }
  // Ollama pairs a tool result with its call by the tool's name; current.jsonl stores it as
  // tool_name (seed 000), older lines may only have OpenAI's legacy `name`.
  const toolName = msg.tool_name ?? (msg.role === 'tool' ? msg.name : undefined);
  if (toolName !== undefined) out.tool_name = toolName;
  // Recent Ollama versions read tool_call_id; older ones ignore unknown fields.
  if (msg.tool_call_id !== undefined) out.tool_call_id = msg.tool_call_id;
  return out;
}

/**
 * Stored arguments (a JSON string, OpenAI style) as the object Ollama requires. Empty text
 * means no arguments. Text that is not a JSON object is kept whole under RAW_ARGUMENTS_KEY.
 */
export function ollamaArguments(stored: unknown): Record<string, unknown> {
  if (isObject(stored)) return stored;
  if (typeof stored !== 'string') return stored == null ? {} : { [RAW_ARGUMENTS_KEY]: stored };
  if (stored.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(stored);
    if (isObject(parsed)) return parsed;
  } catch {
    // fall through: keep the text
  }
  return { [RAW_ARGUMENTS_KEY]: stored };
}
