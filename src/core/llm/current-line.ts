import type { CurrentMessage, MessageRole, ToolCall } from '../../shared/task-types';
import { badInput } from '../errors';
import { isObject, isPlainToolCall } from './json-shape';

const ROLES: ReadonlySet<string> = new Set<MessageRole>(['system', 'user', 'assistant', 'tool']);

/**
 * Checks that a parsed current.jsonl line is a message we can send. A line that is not
 * one is an error naming its place (`where`), never silently dropped: a context with a hole
 * in it makes the model act on something it cannot see.
 */
export function toCurrentMessage(value: unknown, where: string): CurrentMessage {
  if (!isObject(value)) throw badInput(`${where}: expected a message object, found ${kind(value)}`);
  const { role, content } = value;
  if (typeof role !== 'string' || !ROLES.has(role)) {
    throw badInput(`${where}: role must be system, user, assistant or tool, found ${show(role)}`);
  }
  if (content !== undefined && content !== null && typeof content !== 'string') {
    throw badInput(`${where}: content must be a string or null, found ${kind(content)}`);
  }
  const message: CurrentMessage = { role: role as MessageRole, content: content ?? null };
  for (const key of ['tool_name', 'tool_call_id', 'name'] as const) {
    const field = value[key];
    if (field === undefined || field === null) continue;
    if (typeof field !== 'string') throw badInput(`${where}: ${key} must be a string`);
    message[key] = field;
  }
  if (value.tool_calls !== undefined && value.tool_calls !== null) {
    message.tool_calls = toolCalls(value.tool_calls, where);
  }
  return message;
}

function toolCalls(value: unknown, where: string): ToolCall[] {
  if (!Array.isArray(value)) throw badInput(`${where}: tool_calls must be a list`);
  if (value.every(isPlainToolCall)) return value;
  return value.map((call: unknown, i) => {
    const fn = isObject(call) ? call.function : undefined;
    if (!isObject(call) || !isObject(fn) || typeof fn.name !== 'string') {
      throw badInput(`${where}: tool_calls[${i}] must be {id, function: {name, arguments}}`);
    }
    // Imported transcripts sometimes hold arguments as an object: keep them as the JSON
    // text OpenAI uses, which Ollama's projection parses back into the same object.
    const args =
      typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {});
    return {
      id: typeof call.id === 'string' ? call.id : `call_${i}`,
      type: 'function',
      function: { name: fn.name, arguments: args },
    };
  });
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value}`;
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
