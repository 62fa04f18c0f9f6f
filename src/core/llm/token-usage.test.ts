import { describe, expect, it } from 'vitest';
import { makeUsage, usageFromOllama, usageFromOpenAi } from './token-usage';

describe('usage mapping (seed 002 §2.3: total = input + cache_creation + cache_read + output)', () => {
  it('OpenAI: cached tokens are part of prompt_tokens and moved to cache_read', () => {
    expect(
      usageFromOpenAi({
        prompt_tokens: 1000,
        completion_tokens: 50,
        total_tokens: 1050,
        prompt_tokens_details: { cached_tokens: 800 },
      }),
    ).toEqual(makeUsage(200, 50, 0, 800));
    expect(makeUsage(200, 50, 0, 800).total_tokens).toBe(1050);
  });

  it('OpenAI-compatible proxies with Anthropic cache fields', () => {
    expect(
      usageFromOpenAi({
        prompt_tokens: 1000,
        completion_tokens: 10,
        cache_creation_input_tokens: 300,
        cache_read_input_tokens: 600,
      }),
    ).toEqual(makeUsage(100, 10, 300, 600));
  });

  it('Anthropic style: input_tokens excludes the cache', () => {
    expect(
      usageFromOpenAi({
        input_tokens: 100,
        output_tokens: 10,
        cache_creation_input_tokens: 300,
        cache_read_input_tokens: 600,
      }),
    ).toEqual(makeUsage(100, 10, 300, 600));
  });

  it('OpenAI Responses style: input_tokens includes input_tokens_details.cached_tokens', () => {
    expect(
      usageFromOpenAi({
        input_tokens: 100,
        output_tokens: 10,
        input_tokens_details: { cached_tokens: 60 },
      }),
    ).toEqual(makeUsage(40, 10, 0, 60));
  });

  it('no counts → undefined; Ollama counts', () => {
    expect(usageFromOpenAi(null)).toBeUndefined();
    expect(usageFromOpenAi({})).toBeUndefined();
    expect(usageFromOllama({ prompt_eval_count: 7, eval_count: 3 })).toEqual(makeUsage(7, 3));
    // A prompt served from Ollama's cache may come without prompt_eval_count.
    expect(usageFromOllama({ eval_count: 3 })).toEqual(makeUsage(0, 3));
    expect(usageFromOllama({ done: true })).toBeUndefined();
  });
});
