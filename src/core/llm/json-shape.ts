import type { ToolCall } from '../../shared/task-types';

/** Narrowing helpers for JSON from outside (provider answers, context lines). */

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value as an object, or an empty one: optional nested fields read as missing. */
export function asObject(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {};
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * A tool call in exactly the shape OpenAI takes and current.jsonl stores: {id, type:
 * 'function', function: {name, arguments}}, all strings, nothing else. Such a call is sent
 * as parsed instead of copied: an answer of thousands of calls is read again at every
 * model call until it is compacted away (issue #17).
 */
export function isPlainToolCall(call: unknown): call is ToolCall {
  if (!isObject(call) || typeof call.id !== 'string' || call.type !== 'function') return false;
  const fn = call.function;
  return (
    isObject(fn) &&
    typeof fn.name === 'string' &&
    typeof fn.arguments === 'string' &&
    keyCount(call) === 3 &&
    keyCount(fn) === 2
  );
}

/** Counted without the array Object.keys would make. */
function keyCount(value: object): number {
  let count = 0;
  for (const key in value) if (Object.hasOwn(value, key)) count++;
  return count;
}
