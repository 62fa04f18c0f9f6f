import { z } from 'zod';
import { SUMMARY_PROMPT_EN, SUMMARY_PROMPT_JA } from './summary-prompt';

/**
 * The one config shape the rest of the app reads, whatever mix of seed 000
 * (`context_storage`, `llm`) and seed 001 (`context`) sections the file used.
 */

const positiveInt = z.number().int().min(1);

export const storageConfigSchema = z.strictObject({
  enabled: z.boolean(),
  /** Compress when the context exceeds this share of the model's context_length. */
  compression_threshold: z.number().gt(0).lte(1),
  /** Compress when the context exceeds this many tokens (seed 001); null = ratio only. */
  token_threshold: positiveInt.nullable(),
  keep_recent_messages: z.number().int().min(0),
  min_to_compress: positiveInt,
  cleanup_days: positiveInt,
  summary_prompt: z.string().min(1),
  summary_prompt_en: z.string().min(1),
  /** 'fsync' flushes every append to disk: slower, survives power loss. */
  durability: z.enum(['default', 'fsync']),
});

export const inheritanceConfigSchema = z.strictObject({
  enabled: z.boolean(),
  max_summary_tokens: positiveInt,
  expiry_days: positiveInt,
});

/** null model = not configured; the LLM client decides whether it can pick one itself. */
const model = z.string().min(1).nullable();

export const llmConfigSchema = z.strictObject({
  provider: z.enum(['openai', 'ollama', 'lmstudio']),
  openai: z.strictObject({
    model,
    context_length: positiveInt.optional(),
    api_key: z.string().optional(),
    base_url: z.string(),
    max_output_tokens: positiveInt.optional(),
  }),
  ollama: z.strictObject({
    model,
    context_length: positiveInt.optional(),
    base_url: z.string(),
  }),
  lmstudio: z.strictObject({
    model,
    context_length: positiveInt.optional(),
    base_url: z.string(),
    api_key: z.string().optional(),
  }),
});

export const appConfigSchema = z.strictObject({
  /** Absolute folder for contexts; null = the app's default location. */
  contexts_dir: z.string().nullable(),
  storage: storageConfigSchema,
  inheritance: inheritanceConfigSchema,
  llm: llmConfigSchema,
  tools: z.strictObject({ run_command: z.boolean() }),
});

export type AppConfig = z.infer<typeof appConfigSchema>;
export type StorageConfig = AppConfig['storage'];
export type InheritanceConfig = AppConfig['inheritance'];
export type LlmConfig = AppConfig['llm'];
export type LlmProvider = LlmConfig['provider'];
export type Durability = StorageConfig['durability'];

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_OLLAMA_BASE_URL = 'http://127.0.0.1:11434';
export const DEFAULT_LMSTUDIO_BASE_URL = 'http://127.0.0.1:1234/v1';

/** Seed 001 §7.1 defaults, used only for files written in seed 001's `context` style. */
export const SEED_001_TOKEN_THRESHOLD = 8000;
export const SEED_001_KEEP_RECENT = 10;

/** A fresh copy every call, so a caller that mutates its config cannot change the defaults. */
export function defaultConfig(): AppConfig {
  return {
    contexts_dir: null,
    storage: {
      enabled: true,
      compression_threshold: 0.7,
      token_threshold: null,
      keep_recent_messages: 5,
      min_to_compress: 5,
      cleanup_days: 30,
      summary_prompt: SUMMARY_PROMPT_JA,
      summary_prompt_en: SUMMARY_PROMPT_EN,
      durability: 'default',
    },
    inheritance: { enabled: true, max_summary_tokens: 4000, expiry_days: 30 },
    llm: {
      provider: 'ollama',
      openai: { model: null, base_url: DEFAULT_OPENAI_BASE_URL },
      ollama: { model: null, base_url: DEFAULT_OLLAMA_BASE_URL },
      lmstudio: { model: null, base_url: DEFAULT_LMSTUDIO_BASE_URL },
    },
    tools: { run_command: false },
  };
}

export const DEFAULT_CONFIG: Readonly<AppConfig> = deepFreeze(defaultConfig());

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
