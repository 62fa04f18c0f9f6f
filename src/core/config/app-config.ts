import { LEDGER_DEFAULTS } from '../facts/fact-ledger-budget';
import { z } from 'zod';
import { STRATEGY_NAMES } from './strategy-names';
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

const wholeAtLeast = (min: number) => z.number().int().min(min);
const ratio = z.number().gt(0).lte(1);
const directives = z.array(z.string().min(1));

/**
 * Compaction (DESIGN.md §5): seed 002's CompactionConfig plus one section per strategy
 * that has settings of its own. The `summarize` strategy reads `storage`
 * (compression_threshold, keep_recent_messages, min_to_compress, summary_prompt).
 */
export const compactionConfigSchema = z.strictObject({
  /** false = no compaction at all, not even on request. */
  enabled: z.boolean(),
  /** false = no automatic compaction; requests still work (seed 002 §2.5). */
  auto: z.boolean(),
  /** Seed 002 §2.4: compact when usage reaches context limit × threshold_ratio. */
  threshold_ratio: ratio,
  /** Model that writes summaries; null = the task's own model (seed 002 §2.6.2). */
  model,
  /** null = the built-in prompt (asks for a <summary> block). */
  summary_prompt: z.string().min(1).nullable(),
  /** Appended to the summary prompt as bullets (seed 002 §2.6.3). */
  summary_directives: directives,
  /** null = the built-in `<retain>` instruction (seed 002 §2.6.4). */
  retain_prompt: z.string().min(1).nullable(),
  retain_directives: directives,
  /** Newest turns kept verbatim by retain-summary (seed 002 §2.7). */
  retain_last_turns: wholeAtLeast(0),
  /** Strategies run in this order, each at most once. */
  pipeline: z
    .array(z.enum(STRATEGY_NAMES))
    .min(1)
    .refine((names) => new Set(names).size === names.length, 'each strategy at most once'),
  /** Seed 003's HISTORY_CONFIG. */
  importance_window: z.strictObject({
    max_messages: positiveInt,
    /** Share of the newest messages always kept (seed 003: 40 %). */
    recent_ratio: ratio,
    max_text_chars: positiveInt,
    max_data_chars: positiveInt,
    max_ui_nodes: positiveInt,
    max_ui_depth: wholeAtLeast(0),
    max_ui_children: wholeAtLeast(0),
    /** Fields dropped from JSON outputs. */
    noisy_fields: z.array(z.string().min(1)),
  }),
  /** Seed 004's condense. */
  condense: z.strictObject({
    /** Condense at this share of the context window; 100 = only the token buffer rule. */
    threshold_percent: z.number().int().min(5).max(100),
    /** Newest messages always kept (N_MESSAGES_TO_KEEP). */
    keep_messages: positiveInt,
    /** Share of the context window kept free (TOKEN_BUFFER_PERCENTAGE). */
    token_buffer_ratio: z.number().min(0).lt(1),
  }),
  /** Seed 004's truncate: hides this share of the messages after the first. */
  truncate: z.strictObject({ fraction: z.number().gt(0).lt(1) }),
  /** observation-mask: tool outputs of the newest keep_turns turns stay whole. */
  observation_mask: z.strictObject({ keep_turns: wholeAtLeast(0) }),
  /**
   * The fact ledger every summary carries (DESIGN.md §10): at most `max_tokens`, and at most
   * `share` of the tokens of the messages it replaces. max_tokens 0 turns it off.
   */
  fact_ledger: z.strictObject({
    max_tokens: wholeAtLeast(0),
    share: ratio,
    /** A summary step's whole new context: at most this share of the context before (0: no cap). */
    context_share: z.number().min(0).lte(1),
  }),
});

/** Seed 002 §1.3: full tool outputs are cached; the context gets trimmed views. */
export const toolOutputCacheConfigSchema = z.strictObject({
  enabled: z.boolean(),
  /** Token budget for tool outputs in the context; null = see `toolOutputBudgetTokens`. */
  context_budget_tokens: wholeAtLeast(1000).nullable(),
  /** An in-context view is cut after this many bytes. */
  max_message_bytes: wholeAtLeast(1024),
  /** Each line of an in-context view is cut after this many characters. */
  max_line_length: wholeAtLeast(80),
});

export const appConfigSchema = z.strictObject({
  /** Absolute folder for contexts; null = the app's default location. */
  contexts_dir: z.string().nullable(),
  storage: storageConfigSchema,
  inheritance: inheritanceConfigSchema,
  llm: llmConfigSchema,
  tools: z.strictObject({
    run_command: z.boolean(),
    /** Variables passed to commands tools run, beyond the allow-list (supervisor/allowed-env.ts). */
    env_passthrough: z.array(z.string()),
  }),
  compaction: compactionConfigSchema,
  tool_output_cache: toolOutputCacheConfigSchema,
});

export type AppConfig = z.infer<typeof appConfigSchema>;
export type StorageConfig = AppConfig['storage'];
export type InheritanceConfig = AppConfig['inheritance'];
export type LlmConfig = AppConfig['llm'];
export type LlmProvider = LlmConfig['provider'];
export type Durability = StorageConfig['durability'];
export type CompactionConfig = AppConfig['compaction'];
export type ImportanceWindowConfig = CompactionConfig['importance_window'];
export type CondenseConfig = CompactionConfig['condense'];
export type TruncateConfig = CompactionConfig['truncate'];
export type ToolOutputCacheConfig = AppConfig['tool_output_cache'];

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_OLLAMA_BASE_URL = 'http://127.0.0.1:11434';
export const DEFAULT_LMSTUDIO_BASE_URL = 'http://127.0.0.1:1234/v1';

/** Seed 001 §7.1 defaults, used only for files written in seed 001's `context` style. */
export const SEED_001_TOKEN_THRESHOLD = 8000;
export const SEED_001_KEEP_RECENT = 10;

/**
 * Seed 002 §1.3: the token budget for tool outputs in a context of `contextWindow`
 * tokens — the configured one, or 25 % of the window kept between 20000 and 60000.
 */
export function toolOutputBudgetTokens(
  cache: Pick<ToolOutputCacheConfig, 'context_budget_tokens'>,
  contextWindow: number,
): number {
  if (cache.context_budget_tokens !== null) return cache.context_budget_tokens;
  return Math.min(60_000, Math.max(20_000, Math.floor(contextWindow * 0.25)));
}

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
    tools: { run_command: false, env_passthrough: [] },
    compaction: {
      enabled: true,
      auto: true,
      threshold_ratio: 0.8,
      model: null,
      summary_prompt: null,
      summary_directives: [],
      retain_prompt: null,
      retain_directives: [],
      retain_last_turns: 1,
      pipeline: ['tool-output-trim', 'summarize'],
      importance_window: {
        max_messages: 24,
        recent_ratio: 0.4,
        max_text_chars: 1000,
        max_data_chars: 2000,
        max_ui_nodes: 200,
        max_ui_depth: 2,
        max_ui_children: 20,
        noisy_fields: ['description', 'help'],
      },
      condense: { threshold_percent: 100, keep_messages: 3, token_buffer_ratio: 0.1 },
      truncate: { fraction: 0.5 },
      observation_mask: { keep_turns: 10 },
      fact_ledger: { ...LEDGER_DEFAULTS },
    },
    tool_output_cache: {
      enabled: true,
      context_budget_tokens: null,
      max_message_bytes: 51_200,
      max_line_length: 2000,
    },
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
