import crypto from 'node:crypto';
import type { CountableMessage } from './index';

/**
 * Exact o200k counts, made where a figure is shown rather than on every append: the
 * tokenizer module (and its tables) is loaded on the first call only, and counts are kept
 * by content hash so showing the same message again costs a hash, not a tokenization.
 */

type CountO200k = (text: string) => number;

const CACHE_ENTRIES = 20_000;
const cache = new Map<string, number>();
let counter: Promise<CountO200k> | undefined;

function loadCounter(): Promise<CountO200k> {
  counter ??= import('./o200k').then((m) => m.countO200k);
  return counter;
}

function key(text: string): string {
  return crypto.createHash('sha256').update(text).digest('base64');
}

/** o200k tokens of `text`, cached by its SHA-256. */
export async function exactTokens(text: string): Promise<number> {
  if (text === '') return 0;
  const k = key(text);
  const hit = cache.get(k);
  if (hit !== undefined) {
    // Map order is insertion order: re-inserting makes this the newest entry.
    cache.delete(k);
    cache.set(k, hit);
    return hit;
  }
  const count = (await loadCounter())(text);
  cache.set(k, count);
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  return count;
}

/** o200k tokens of a message as sent: its content plus the JSON of its tool calls. */
export async function exactMessageTokens(msg: CountableMessage): Promise<number> {
  let total = 0;
  if (msg.content !== null && msg.content !== '') total += await exactTokens(msg.content);
  const calls = msg.tool_calls;
  if (calls !== undefined && calls !== null && !(Array.isArray(calls) && calls.length === 0)) {
    total += await exactTokens(JSON.stringify(calls));
  }
  return total;
}
