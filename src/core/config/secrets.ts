import type { AppConfig } from './app-config';

/**
 * Secret tracking. API keys are secrets wherever they came from; so is anything that
 * arrived through `${VAR}` (except folder paths: scrubbing $HOME from every log line would
 * make logs useless and a path is not a credential). Substituted values are remembered per
 * loaded config object, so a hand-made copy of a config only reports its API keys.
 */

const substituted = new WeakMap<AppConfig, readonly string[]>();

export const REDACTED = '***';

/** Called by the loader for the config it returns. */
export function trackSecrets(config: AppConfig, values: readonly string[]): void {
  substituted.set(
    config,
    values.filter((v) => v !== ''),
  );
}

/** Every secret in `config`, longest first so scrubbing never leaves a tail of a longer one. */
export function secretValues(config: AppConfig): string[] {
  const found = new Set<string>(substituted.get(config) ?? []);
  const { openai, ollama, lmstudio } = config.llm;
  for (const key of [openai.api_key, lmstudio.api_key]) if (key) found.add(key);
  for (const url of [openai.base_url, ollama.base_url, lmstudio.base_url]) {
    for (const secret of urlPassword(url)) found.add(secret);
  }
  return [...found].sort((a, b) => b.length - a.length);
}

function urlPassword(url: string): string[] {
  try {
    const { password } = new URL(url);
    if (password === '') return [];
    const decoded = decodeURIComponent(password);
    return decoded === password ? [password] : [password, decoded];
  } catch {
    return [];
  }
}

/**
 * The strings to remove for `secrets`: each one as is and, from `minLength` characters on,
 * also JSON-escaped (as printed inside JSON, `/` also as `\/`) and URL-encoded where those
 * differ. Longest first, so a longer form is replaced before a shorter one could leave its
 * tail behind.
 */
export function secretForms(secrets: readonly string[], minLength = 1): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret === '' || secret.length < minLength) continue;
    const json = JSON.stringify(secret).slice(1, -1);
    for (const form of [secret, json, json.replaceAll('/', '\\/'), encodeURIComponent(secret)]) {
      forms.add(form);
    }
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * Logs and error lines skip values shorter than this: a `${VAR}` holding "1" or "on" is no
 * credential, and replacing every "1" would make the text useless.
 */
export const MIN_LOGGED_SECRET_LENGTH = 4;

/** `text` with every occurrence of every secret replaced by "***". */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret !== '') out = out.split(secret).join(REDACTED);
  return out;
}

/** A copy safe to print (`cwb doctor`, settings screen): API keys and other secrets become "***". */
export function redactConfig(config: AppConfig): AppConfig {
  const secrets = secretValues(config);
  const copy = scrubStrings(config, secrets) as AppConfig;
  if (copy.llm.openai.api_key !== undefined) copy.llm.openai.api_key = REDACTED;
  if (copy.llm.lmstudio.api_key !== undefined) copy.llm.lmstudio.api_key = REDACTED;
  return copy;
}

function scrubStrings(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return scrubSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((item) => scrubStrings(item, secrets));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) out[key] = scrubStrings(child, secrets);
    return out;
  }
  return value;
}
