/**
 * LLM clients: OpenAI-compatible chat completions, Ollama's native API and LM Studio. The
 * request body is streamed from current.jsonl into request.json and from there into the
 * HTTP request; answers are parsed as they stream in.
 */
export { createLlmClient, REQUEST_FILE_NAME } from './llm-client';
export type {
  ChatRequest,
  CompleteOptions,
  LlmClient,
  LlmClientOptions,
  PingResult,
} from './llm-client';
export { LlmError, isContextLengthError } from './llm-error';
export type { LlmErrorKind } from './llm-error';
export type { DeltaListener, LlmResponse } from './llm-response';
export { lookupModel, resolveModelLimits } from './model-registry';
export type { ConfiguredLimits, ModelLimits } from './model-registry';
export {
  API_KEY_ENV,
  PROVIDER_LABELS,
  chatUrl,
  displayUrl,
  modelsUrl,
  providerSettings,
  resolveApiKey,
} from './provider-info';
export type { ProviderSettings } from './provider-info';
export { RAW_ARGUMENTS_KEY, ollamaArguments, toProviderMessage } from './provider-message';
export type {
  OllamaMessage,
  OllamaToolCall,
  OpenAiMessage,
  ProviderMessage,
} from './provider-message';
export { writeRequestFile } from './request-file';
export type { RequestFileOptions, RequestFileResult } from './request-file';
export { makeUsage, usageFromOllama, usageFromOpenAi } from './token-usage';
export type { JsonSchema, ToolDefinition } from './tool-definition';
