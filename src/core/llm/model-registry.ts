import type { LlmProvider } from '../config/app-config';
import { CwbError } from '../errors';

/**
 * Context window and answer cap of well-known models, so compaction knows its limit
 * without configuration (seed 002 §2.4). Only figures from the vendors' own model pages
 * are listed; anything else must be configured (llm.<provider>.context_length), and a
 * model that is neither listed nor configured is an error rather than a guess.
 *
 * contextWindow counts input + output tokens. maxOutputTokens is the vendor's cap on one
 * answer; open-weight models have no separate cap, so theirs is the whole window.
 */

export interface ModelLimits {
  contextWindow: number;
  maxOutputTokens: number;
  /** Where contextWindow came from. */
  source: 'config' | 'registry';
}

export interface ConfiguredLimits {
  context_length?: number;
  max_output_tokens?: number;
}

interface Entry {
  /** Names the entry matches, lowercase; a name matches itself and `name` + a separator + more. */
  names: string[];
  contextWindow: number;
  maxOutputTokens?: number;
}

const K = 1024;

const REGISTRY: Entry[] = [
  // OpenAI
  { names: ['gpt-5', 'gpt-5.1'], contextWindow: 400_000, maxOutputTokens: 128_000 },
  { names: ['gpt-5-chat', 'gpt-5.1-chat'], contextWindow: 128_000, maxOutputTokens: 16_384 },
  { names: ['gpt-4.1'], contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  { names: ['gpt-4o', 'chatgpt-4o'], contextWindow: 128_000, maxOutputTokens: 16_384 },
  { names: ['gpt-4o-2024-05-13'], contextWindow: 128_000, maxOutputTokens: 4_096 },
  {
    names: ['gpt-4-turbo', 'gpt-4-1106-preview', 'gpt-4-0125-preview'],
    contextWindow: 128_000,
    maxOutputTokens: 4_096,
  },
  { names: ['gpt-4'], contextWindow: 8_192, maxOutputTokens: 8_192 },
  { names: ['gpt-3.5-turbo'], contextWindow: 16_385, maxOutputTokens: 4_096 },
  {
    names: ['o1', 'o3', 'o3-mini', 'o3-pro', 'o4-mini'],
    contextWindow: 200_000,
    maxOutputTokens: 100_000,
  },
  { names: ['o1-mini'], contextWindow: 128_000, maxOutputTokens: 65_536 },
  { names: ['o1-preview'], contextWindow: 128_000, maxOutputTokens: 32_768 },
  { names: ['gpt-oss'], contextWindow: 131_072 },
  // Anthropic (through OpenAI-compatible proxies); dotted names are OpenRouter's spelling.
  {
    names: ['claude-3-opus', 'claude-3-haiku', 'claude-3-sonnet'],
    contextWindow: 200_000,
    maxOutputTokens: 4_096,
  },
  {
    names: ['claude-3-5-sonnet', 'claude-3.5-sonnet', 'claude-3-5-haiku', 'claude-3.5-haiku'],
    contextWindow: 200_000,
    maxOutputTokens: 8_192,
  },
  {
    names: ['claude-3-7-sonnet', 'claude-3.7-sonnet'],
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
  },
  {
    names: [
      'claude-sonnet-4',
      'claude-sonnet-4-5',
      'claude-sonnet-4.5',
      'claude-haiku-4-5',
      'claude-haiku-4.5',
      'claude-opus-4-5',
      'claude-opus-4.5',
    ],
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
  },
  {
    names: ['claude-opus-4', 'claude-opus-4-1', 'claude-opus-4.1'],
    contextWindow: 200_000,
    maxOutputTokens: 32_000,
  },
  // Meta Llama (Ollama tags and LM Studio / Hugging Face names)
  { names: ['llama2'], contextWindow: 4_096 },
  { names: ['llama3', 'llama-3', 'meta-llama-3'], contextWindow: 8_192 },
  {
    names: [
      'llama3.1',
      'llama-3.1',
      'meta-llama-3.1',
      'llama3.2',
      'llama-3.2',
      'llama3.3',
      'llama-3.3',
    ],
    contextWindow: 128 * K,
  },
  { names: ['codellama'], contextWindow: 16 * K },
  // Qwen
  { names: ['qwen2.5', 'qwen2.5-coder'], contextWindow: 32 * K },
  { names: ['qwen3'], contextWindow: 40 * K },
  { names: ['qwen3-coder'], contextWindow: 256 * K },
  // Mistral
  { names: ['mistral', 'mixtral', 'codestral'], contextWindow: 32 * K },
  { names: ['mistral-nemo'], contextWindow: 128 * K },
  // Google Gemma
  { names: ['gemma', 'gemma2', 'gemma-2'], contextWindow: 8_192 },
  { names: ['gemma3', 'gemma-3'], contextWindow: 128 * K },
  { names: ['gemma3:1b', 'gemma-3-1b'], contextWindow: 32 * K },
  // DeepSeek (API names and Ollama tags)
  { names: ['deepseek-chat'], contextWindow: 128_000, maxOutputTokens: 8_192 },
  { names: ['deepseek-reasoner'], contextWindow: 128_000, maxOutputTokens: 65_536 },
  { names: ['deepseek-r1'], contextWindow: 128 * K },
  { names: ['deepseek-coder-v2'], contextWindow: 160 * K },
  // Microsoft
  { names: ['phi4', 'phi-4'], contextWindow: 16 * K },
];

// What may follow a listed name: a version, size or quantization suffix. Not '.', so that
// "gpt-4" never claims "gpt-4.1" and "qwen3" never claims "qwen3.5".
const SEPARATORS = new Set(['-', ':', '@', '_']);

/** The registry entry for `model`, matching the longest listed name; undefined if none. */
export function lookupModel(
  model: string,
): { contextWindow: number; maxOutputTokens: number } | undefined {
  const name = normalize(model);
  let best: { entry: Entry; length: number } | undefined;
  for (const entry of REGISTRY) {
    for (const listed of entry.names) {
      const matches =
        name === listed || (name.startsWith(listed) && SEPARATORS.has(name[listed.length]));
      if (matches && (!best || listed.length > best.length))
        best = { entry, length: listed.length };
    }
  }
  if (!best) return undefined;
  const { contextWindow, maxOutputTokens } = best.entry;
  return { contextWindow, maxOutputTokens: maxOutputTokens ?? contextWindow };
}

/**
 * The limits to work with: configured values win, the registry fills in the rest. A model
 * the registry does not know needs llm.<provider>.context_length.
 */
export function resolveModelLimits(
  model: string,
  configured: ConfiguredLimits = {},
  provider?: LlmProvider,
): ModelLimits {
  const known = lookupModel(model);
  const contextWindow = configured.context_length ?? known?.contextWindow;
  if (contextWindow === undefined) {
    const key = `llm.${provider ?? '<provider>'}.context_length`;
    throw new CwbError(
      'bad_input',
      `model "${model}" is not in the model registry, so its context window is unknown: set ${key} in config.yaml to the model's context window in tokens`,
    );
  }
  const maxOutputTokens = Math.min(
    configured.max_output_tokens ?? known?.maxOutputTokens ?? contextWindow,
    contextWindow,
  );
  return {
    contextWindow,
    maxOutputTokens,
    source: configured.context_length !== undefined ? 'config' : 'registry',
  };
}

/**
 * Lowercase, without a namespace ("openai/gpt-4o", "hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M",
 * LM Studio's "qwen/qwen3-8b") and without Bedrock-style vendor prefixes ("anthropic.").
 */
function normalize(model: string): string {
  const lower = model.trim().toLowerCase();
  const base = lower.slice(lower.lastIndexOf('/') + 1);
  return base.replace(/^(anthropic|openai|meta|mistral|google)\./, '');
}
