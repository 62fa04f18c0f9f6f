import type { AppConfig } from '../config/app-config';
import { secretValues } from '../config/secrets';
import { secretEnvValues } from '../tools/command-env';
import { llmSecrets } from './llm-secrets';

/**
 * Every secret a process of the app knows and must keep out of what it records: the
 * config's (API keys, URL passwords, `${VAR}` values), the provider keys of the
 * environment, and every other long value of a variable named like a secret (`*_API_KEY`,
 * `*_TOKEN`, `*_SECRET`). Tool results (worker) and logs (app, CLI) are scrubbed of them.
 * `config` is null when it could not be loaded: the environment's still count.
 */
export function processSecrets(config: AppConfig | null, env: NodeJS.ProcessEnv): string[] {
  const fromEnv = secretEnvValues(env);
  if (!config) return [...new Set(fromEnv)].sort((a, b) => b.length - a.length);
  return llmSecrets(config.llm, env, [...secretValues(config), ...fromEnv]);
}
