import type { LlmConfig, LlmProvider } from '../config/app-config';

/** What differs between providers besides the wire format: names, endpoints, keys. */

export const PROVIDER_LABELS: Record<LlmProvider, string> = {
  openai: 'OpenAI',
  ollama: 'Ollama',
  lmstudio: 'LM Studio',
};

/** The environment variable an API key is read from when config.yaml has none. */
export const API_KEY_ENV: Partial<Record<LlmProvider, string>> = {
  openai: 'OPENAI_API_KEY',
  lmstudio: 'LMSTUDIO_API_KEY',
};

/** Base URLs are normalized without a trailing slash; OpenAI and LM Studio's include /v1. */
export function chatUrl(provider: LlmProvider, baseUrl: string): string {
  return provider === 'ollama' ? `${baseUrl}/api/chat` : `${baseUrl}/chat/completions`;
}

export function modelsUrl(provider: LlmProvider, baseUrl: string): string {
  return provider === 'ollama' ? `${baseUrl}/api/tags` : `${baseUrl}/models`;
}

/** The provider's section of the config, read through the fields any of them may have. */
export interface ProviderSettings {
  model: string | null;
  base_url: string;
  context_length?: number;
  api_key?: string;
  max_output_tokens?: number;
}

export function providerSettings(config: LlmConfig, provider = config.provider): ProviderSettings {
  return config[provider];
}

/** The API key to send: config.yaml first (it may be a `${VAR}`), then the environment. */
export function resolveApiKey(
  provider: LlmProvider,
  settings: ProviderSettings,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (settings.api_key) return settings.api_key;
  const name = API_KEY_ENV[provider];
  const fromEnv = name ? env[name]?.trim() : undefined;
  return fromEnv ? fromEnv : undefined;
}

/** The base URL fit to print: any user:password@ part removed. */
export function displayUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    if (url.username === '' && url.password === '') return baseUrl;
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return baseUrl;
  }
}
