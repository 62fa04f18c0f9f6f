import { describe, expect, it } from 'vitest';
import { CwbError } from '../errors';
import { lookupModel, resolveModelLimits } from './model-registry';

describe('lookupModel', () => {
  it.each([
    ['gpt-4o', 128_000, 16_384],
    ['gpt-4o-2024-08-06', 128_000, 16_384],
    ['gpt-4o-2024-05-13', 128_000, 4_096],
    ['gpt-4o-mini', 128_000, 16_384],
    ['gpt-4.1-mini-2025-04-14', 1_047_576, 32_768],
    ['gpt-4-0613', 8_192, 8_192],
    ['o3', 200_000, 100_000],
    ['o4-mini-2025-04-16', 200_000, 100_000],
    ['gpt-5', 400_000, 128_000],
    ['gpt-5-mini', 400_000, 128_000],
    ['gpt-5-chat-latest', 128_000, 16_384],
    ['openai/gpt-4o', 128_000, 16_384],
    ['claude-3-5-sonnet-20241022', 200_000, 8_192],
    ['anthropic/claude-3.7-sonnet', 200_000, 64_000],
    ['claude-sonnet-4-20250514', 200_000, 64_000],
    ['claude-opus-4-1-20250805', 200_000, 32_000],
    ['claude-haiku-4-5', 200_000, 64_000],
    ['llama3.1:8b-instruct-q4_K_M', 131_072, 131_072],
    ['llama3', 8_192, 8_192],
    ['qwen3:30b', 40_960, 40_960],
    ['qwen3-coder:30b', 262_144, 262_144],
    ['qwen2.5-coder:7b', 32_768, 32_768],
    ['hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M', 40_960, 40_960],
    ['gemma3:1b', 32_768, 32_768],
    ['gemma3:27b', 131_072, 131_072],
    ['mistral:7b', 32_768, 32_768],
    ['deepseek-r1:14b', 131_072, 131_072],
  ])('%s → %i / %i', (model, contextWindow, maxOutputTokens) => {
    expect(lookupModel(model)).toEqual({ contextWindow, maxOutputTokens });
  });

  it('does not let a shorter name claim a different model', () => {
    expect(lookupModel('gpt-4.5-preview')).toBeUndefined();
    expect(lookupModel('qwen3.5')).toBeUndefined();
    expect(lookupModel('gemma3n:e4b')).toBeUndefined();
    expect(lookupModel('my-finetune')).toBeUndefined();
  });
});

describe('resolveModelLimits', () => {
  it('takes configured values first', () => {
    expect(resolveModelLimits('gpt-4o', { context_length: 64_000 })).toEqual({
      contextWindow: 64_000,
      maxOutputTokens: 16_384,
      source: 'config',
    });
    expect(resolveModelLimits('gpt-4o', { max_output_tokens: 2_000 })).toEqual({
      contextWindow: 128_000,
      maxOutputTokens: 2_000,
      source: 'registry',
    });
    expect(resolveModelLimits('my-finetune', { context_length: 8_192 })).toEqual({
      contextWindow: 8_192,
      maxOutputTokens: 8_192,
      source: 'config',
    });
  });

  it('refuses a model it does not know without a configured context_length', () => {
    let error: unknown;
    try {
      resolveModelLimits('my-finetune', {}, 'ollama');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CwbError);
    expect((error as CwbError).code).toBe('bad_input');
    expect((error as Error).message).toBe(
      'model "my-finetune" is not in the model registry, so its context window is unknown: set llm.ollama.context_length in config.yaml to the model\'s context window in tokens',
    );
  });
});
