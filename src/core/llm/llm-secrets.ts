import type { LlmConfig } from '../config/app-config';
import { API_KEY_ENV } from './provider-info';

/**
 * Every value an LLM client must keep out of its messages: the API keys of the config and
 * of the environment, passwords inside base URLs, and whatever the caller adds (the
 * `${VAR}` values config/secrets.ts tracks for the whole config). Longest first, so
 * scrubbing never leaves the tail of a longer secret behind.
 */
export function llmSecrets(
  config: LlmConfig,
  env: NodeJS.ProcessEnv,
  extra: readonly string[] = [],
): string[] {
  const found = new Set<string>(extra);
  for (const key of [config.openai.api_key, config.lmstudio.api_key]) if (key) found.add(key);
  for (const name of Object.values(API_KEY_ENV)) {
    const value = name ? env[name]?.trim() : undefined;
    if (value) found.add(value);
  }
  for (const url of [config.openai.base_url, config.ollama.base_url, config.lmstudio.base_url]) {
    try {
      const { password } = new URL(url);
      if (password) {
        found.add(password);
        found.add(decodeURIComponent(password));
      }
    } catch {
      // not a URL, or a password that does not decode: what was added stays
    }
  }
  found.delete('');
  return [...found].sort((a, b) => b.length - a.length);
}
