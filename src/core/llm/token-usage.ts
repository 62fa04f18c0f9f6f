import type { TokenUsage } from '../../shared/task-types';
import { isObject } from './json-shape';

/**
 * Provider usage → seed 002 §2.3 TokenUsage, where input_tokens excludes cached tokens and
 * total = input + cache_creation + cache_read + output. The total is always computed, never
 * copied, so every provider's figures add up the same way.
 */
export function makeUsage(
  input: number,
  output: number,
  cacheCreation = 0,
  cacheRead = 0,
): TokenUsage {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_creation_tokens: cacheCreation,
    cache_read_tokens: cacheRead,
    total_tokens: input + cacheCreation + cacheRead + output,
  };
}

/**
 * An OpenAI-compatible `usage` object. Two conventions meet here:
 * - OpenAI (prompt_tokens): the prompt count includes cached tokens, reported in
 *   prompt_tokens_details.cached_tokens, so they are subtracted to get the uncached input.
 *   Proxies in front of Anthropic models add cache_read_input_tokens /
 *   cache_creation_input_tokens; these are taken as parts of prompt_tokens too
 *   (best effort: the result is clamped at 0 should a proxy count them outside).
 * - Anthropic (input_tokens without prompt_tokens): input already excludes the cache fields,
 *   which are added; OpenAI's Responses API also says input_tokens but includes
 *   input_tokens_details.cached_tokens, which is then subtracted.
 * Returns undefined when the object carries no counts.
 */
export function usageFromOpenAi(raw: unknown): TokenUsage | undefined {
  if (!isObject(raw)) return undefined;
  const prompt = count(raw.prompt_tokens);
  const anthropicInput = count(raw.input_tokens);
  const output = count(raw.completion_tokens) ?? count(raw.output_tokens);
  if (prompt === undefined && anthropicInput === undefined && output === undefined) {
    return undefined;
  }
  const promptDetails = isObject(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const inputDetails = isObject(raw.input_tokens_details) ? raw.input_tokens_details : undefined;
  const cacheRead =
    count(promptDetails.cached_tokens) ??
    count(inputDetails?.cached_tokens) ??
    count(raw.cache_read_input_tokens) ??
    0;
  const cacheCreation =
    count(raw.cache_creation_input_tokens) ?? count(promptDetails.cache_creation_tokens) ?? 0;
  let input: number;
  if (prompt !== undefined) input = Math.max(0, prompt - cacheRead - cacheCreation);
  else if (inputDetails !== undefined) input = Math.max(0, (anthropicInput ?? 0) - cacheRead);
  else input = anthropicInput ?? 0;
  return makeUsage(input, output ?? 0, cacheCreation, cacheRead);
}

/**
 * Ollama's final chunk: prompt_eval_count (prompt tokens evaluated) and eval_count (tokens
 * generated). Ollama reports no cache split; a prompt served from its KV cache may omit
 * prompt_eval_count, which then counts as 0.
 */
export function usageFromOllama(raw: unknown): TokenUsage | undefined {
  if (!isObject(raw)) return undefined;
  const input = count(raw.prompt_eval_count);
  const output = count(raw.eval_count);
  if (input === undefined && output === undefined) return undefined;
  return makeUsage(input ?? 0, output ?? 0);
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}
