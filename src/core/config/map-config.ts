import os from 'node:os';
import path from 'node:path';
import {
  DEFAULT_LMSTUDIO_BASE_URL,
  DEFAULT_OLLAMA_BASE_URL,
  DEFAULT_OPENAI_BASE_URL,
  SEED_001_KEEP_RECENT,
  SEED_001_TOKEN_THRESHOLD,
  defaultConfig,
} from './app-config';
import type { AppConfig } from './app-config';
import type {
  CompactionSource,
  ContextSource,
  ContextStorageSource,
  LlmSource,
  ToolOutputCacheSource,
  ToolsSource,
} from './source-schemas';

export interface ConfigSources {
  context_storage?: ContextStorageSource | null;
  context?: ContextSource | null;
  llm?: LlmSource | null;
  tools?: ToolsSource | null;
  compaction?: CompactionSource | null;
  tool_output_cache?: ToolOutputCacheSource | null;
}

/**
 * Folds the user's sections into the canonical config.
 *
 * Precedence when both seeds' sections set the same thing:
 * - keys both define (base folder, messages kept when compressing): `context_storage`
 *   wins, because it is seed 000's storage section and the more specific of the two;
 * - compression keys only seed 001 defines (`token_threshold`, `min_to_compress`):
 *   `context.compression` wins, even over our alias
 *   `context_storage.min_messages_to_summarize`.
 *
 * Seed 001's own defaults (token_threshold 8000, keep_recent 10, §7.1) fill in only for a
 * file written in its style: one with a `context.compression` section, or with `context`
 * and no `context_storage`. A file that uses `context` just for `inheritance` next to
 * `context_storage` keeps seed 000's ratio-only compression.
 */
export function mapSources(sources: ConfigSources, configDir: string): AppConfig {
  const config = defaultConfig();
  const storage = sources.context_storage ?? undefined;
  const context = sources.context ?? undefined;
  const compression = context?.compression ?? undefined;
  const inheritance = context?.inheritance ?? undefined;
  const seed001Style =
    compression !== undefined || (context !== undefined && storage === undefined);

  const baseDir = storage?.base_dir ?? context?.base_dir;
  if (baseDir != null) config.contexts_dir = resolveDir(baseDir, configDir);

  const s = config.storage;
  s.enabled = storage?.enabled ?? s.enabled;
  s.compression_threshold = storage?.compression_threshold ?? s.compression_threshold;
  s.token_threshold =
    compression?.token_threshold ?? (seed001Style ? SEED_001_TOKEN_THRESHOLD : null);
  s.keep_recent_messages =
    storage?.keep_recent_messages ??
    compression?.keep_recent ??
    (seed001Style ? SEED_001_KEEP_RECENT : s.keep_recent_messages);
  s.min_to_compress =
    compression?.min_to_compress ?? storage?.min_messages_to_summarize ?? s.min_to_compress;
  s.cleanup_days = storage?.cleanup_days ?? s.cleanup_days;
  s.summary_prompt = storage?.summary_prompt ?? s.summary_prompt;
  s.summary_prompt_en = storage?.summary_prompt_en ?? s.summary_prompt_en;
  s.durability = storage?.durability ?? s.durability;

  const inh = config.inheritance;
  inh.enabled = inheritance?.enabled ?? inh.enabled;
  inh.max_summary_tokens = inheritance?.max_summary_tokens ?? inh.max_summary_tokens;
  inh.expiry_days = inheritance?.expiry_days ?? inh.expiry_days;

  mapLlm(config, sources.llm ?? undefined);
  config.tools.run_command = sources.tools?.run_command ?? config.tools.run_command;
  config.tools.env_passthrough = sources.tools?.env_passthrough ?? config.tools.env_passthrough;
  mapCompaction(config, sources.compaction ?? undefined);
  mapToolOutputCache(config, sources.tool_output_cache ?? undefined);
  return config;
}

/** Seed 002's camelCase keys become snake_case; the strategy sections already are. */
function mapCompaction(config: AppConfig, source: CompactionSource | undefined): void {
  const out = config.compaction;
  out.enabled = source?.enabled ?? out.enabled;
  out.auto = source?.auto ?? out.auto;
  out.threshold_ratio = source?.thresholdRatio ?? out.threshold_ratio;
  out.model = source?.model ?? out.model;
  out.summary_prompt = source?.summaryPrompt ?? out.summary_prompt;
  out.summary_directives = source?.summaryDirectives ?? out.summary_directives;
  out.retain_prompt = source?.retainPrompt ?? out.retain_prompt;
  out.retain_directives = source?.retainDirectives ?? out.retain_directives;
  out.retain_last_turns = source?.retainLastTurns ?? out.retain_last_turns;
  out.pipeline = source?.pipeline ?? out.pipeline;

  const window = source?.importance_window ?? undefined;
  const w = out.importance_window;
  w.max_messages = window?.max_messages ?? w.max_messages;
  w.recent_ratio = window?.recent_ratio ?? w.recent_ratio;
  w.max_text_chars = window?.max_text_chars ?? w.max_text_chars;
  w.max_data_chars = window?.max_data_chars ?? w.max_data_chars;
  w.max_ui_nodes = window?.max_ui_nodes ?? w.max_ui_nodes;
  w.max_ui_depth = window?.max_ui_depth ?? w.max_ui_depth;
  w.max_ui_children = window?.max_ui_children ?? w.max_ui_children;
  w.noisy_fields = window?.noisy_fields ?? w.noisy_fields;

  const condense = source?.condense ?? undefined;
  const c = out.condense;
  c.threshold_percent = condense?.threshold_percent ?? c.threshold_percent;
  c.keep_messages = condense?.keep_messages ?? c.keep_messages;
  c.token_buffer_ratio = condense?.token_buffer_ratio ?? c.token_buffer_ratio;

  out.truncate.fraction = source?.truncate?.fraction ?? out.truncate.fraction;
  out.observation_mask.keep_turns =
    source?.observation_mask?.keep_turns ?? out.observation_mask.keep_turns;

  const ledger = source?.fact_ledger ?? undefined;
  out.fact_ledger.max_tokens = ledger?.max_tokens ?? out.fact_ledger.max_tokens;
  out.fact_ledger.share = ledger?.share ?? out.fact_ledger.share;
  out.fact_ledger.context_share = ledger?.context_share ?? out.fact_ledger.context_share;
}

function mapToolOutputCache(config: AppConfig, source: ToolOutputCacheSource | undefined): void {
  const out = config.tool_output_cache;
  out.enabled = source?.enabled ?? out.enabled;
  out.context_budget_tokens = source?.contextBudgetTokens ?? out.context_budget_tokens;
  out.max_message_bytes = source?.maxMessageBytes ?? out.max_message_bytes;
  out.max_line_length = source?.maxLineLength ?? out.max_line_length;
}

function mapLlm(config: AppConfig, llm: LlmSource | undefined): void {
  const out = config.llm;
  out.provider = llm?.provider ?? out.provider;

  const openai = llm?.openai ?? undefined;
  out.openai = {
    model: openai?.model ?? null,
    ...optional('context_length', openai?.context_length),
    ...optional('api_key', openai?.api_key),
    base_url: normalizeBaseUrl(openai?.base_url ?? DEFAULT_OPENAI_BASE_URL, true),
    ...optional('max_output_tokens', openai?.max_output_tokens),
  };

  const ollama = llm?.ollama ?? undefined;
  out.ollama = {
    model: ollama?.model ?? null,
    ...optional('context_length', ollama?.context_length),
    base_url: normalizeBaseUrl(ollama?.base_url ?? DEFAULT_OLLAMA_BASE_URL, false),
  };

  const lmstudio = llm?.lmstudio ?? undefined;
  out.lmstudio = {
    model: lmstudio?.model ?? null,
    ...optional('context_length', lmstudio?.context_length),
    base_url: normalizeBaseUrl(lmstudio?.base_url ?? DEFAULT_LMSTUDIO_BASE_URL, true),
    ...optional('api_key', lmstudio?.api_key),
  };
}

/** Leaves the key out instead of writing `key: undefined`, so printed configs stay tidy. */
function optional<K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } {
  return value === null || value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}

/**
 * Base URLs are stored without a trailing slash and, for OpenAI-style APIs, including
 * `/v1`, so clients append `/chat/completions`. Seed 000's example writes
 * `https://api.openai.com/` and had the client add `/v1`; a bare host is completed the
 * same way here.
 */
export function normalizeBaseUrl(url: string, openAiStyle: boolean): string {
  const trimmed = url.replace(/\/+$/, '');
  if (!openAiStyle) return trimmed;
  const { pathname } = new URL(trimmed);
  return pathname === '' || pathname === '/' ? `${trimmed}/v1` : trimmed;
}

/** `~/x` is the home folder; other relative paths are relative to the config file. */
export function resolveDir(dir: string, configDir: string): string {
  if (dir === '~') return os.homedir();
  if (dir.startsWith('~/') || dir.startsWith('~\\')) return path.join(os.homedir(), dir.slice(2));
  return path.resolve(configDir, dir);
}
