export {
  DEFAULT_CONFIG,
  DEFAULT_LMSTUDIO_BASE_URL,
  DEFAULT_OLLAMA_BASE_URL,
  DEFAULT_OPENAI_BASE_URL,
  appConfigSchema,
  compactionConfigSchema,
  defaultConfig,
  toolOutputBudgetTokens,
  toolOutputCacheConfigSchema,
} from './app-config';
export type {
  AppConfig,
  CompactionConfig,
  CondenseConfig,
  Durability,
  ImportanceWindowConfig,
  InheritanceConfig,
  LlmConfig,
  LlmProvider,
  StorageConfig,
  ToolOutputCacheConfig,
  TruncateConfig,
} from './app-config';
export { ConfigError } from './config-error';
export { defaultConfigPath } from './config-path';
export { EXAMPLE_CONFIG_YAML } from './example-config';
export { loadConfig, parseConfigText } from './load-config';
export type { LoadConfigOptions, LoadedConfig, ParseConfigOptions } from './load-config';
export { REDACTED, redactConfig, scrubSecrets, secretValues } from './secrets';
export {
  MESSAGES_PLACEHOLDER,
  SUMMARY_PROMPT_EN,
  SUMMARY_PROMPT_JA,
  splitSummaryPrompt,
} from './summary-prompt';
export { STRATEGY_NAMES, isStrategyName } from './strategy-names';
export type { StrategyName } from './strategy-names';
