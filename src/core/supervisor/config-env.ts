import fs from 'node:fs';
import path from 'node:path';
import { defaultConfigPath } from '../config/config-path';
import { ENV_OVERRIDE_NAMES } from '../config/env-overrides';
import { referencedEnvNames } from '../config/env-substitution';
import type { AppConfig } from '../config/app-config';
import { loadConfig } from '../config/load-config';
import { API_KEY_ENV } from '../llm/provider-info';

/**
 * What a host hands a task process over its own channel (the `start` message), instead of
 * through the environment: the variables its config loading reads. A task process's
 * environment is allow-listed (allowed-env.ts), so these would be missing there; handed
 * over, they live only in the task process's memory (an env map given to loadConfig and
 * the LLM client), never in `/proc/<pid>/environ`, never inherited by a command it runs.
 *
 * - every variable config.yaml refers to as `${VAR}` (the API key, usually);
 * - the provider key variables read when config.yaml names no key (OPENAI_API_KEY, …);
 * - cwb's own: CWB_CONFIG (which config.yaml), CWB_INDEX_URL and CWB_HOST (the fleet's
 *   index and this host's name) and the overrides of seed 000 §9.2;
 * - the variables `tools.env_passthrough` names, for the commands tools run.
 *
 * Only variables that are set are included.
 *
 * With them goes the config itself, loaded here as the task process would load it (the
 * same file, the same variables): a task process that is handed its config never loads
 * js-yaml and never builds the config's schemas, ~1.5 MiB of its peak (issue #17). A
 * config that does not load is not handed over: the task process then loads it itself
 * and reports the error as it always did.
 */
export interface ConfigHandover {
  configEnv: Record<string, string>;
  config?: AppConfig;
}

export function configHandover(configFile: string | null, env: NodeJS.ProcessEnv): ConfigHandover {
  // CWB_INDEX_URL/CWB_HOST: a fleet's task index (docs/fleet.md); the URL may hold a password.
  const names = new Set<string>(['CWB_CONFIG', 'CWB_INDEX_URL', 'CWB_HOST', ...ENV_OVERRIDE_NAMES]);
  for (const name of Object.values(API_KEY_ENV)) if (name) names.add(name);
  const file = configFile ? path.resolve(configFile) : defaultConfigPath(env);
  let text: string | undefined;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    // No file (defaults), or one the task process will fail to read with a clear error.
  }
  if (text !== undefined) for (const name of referencedEnvNames(text)) names.add(name);
  let config: AppConfig | undefined;
  try {
    config = loadConfig({ file: configFile, env }).config;
    for (const name of config.tools.env_passthrough) names.add(name);
  } catch {
    // An invalid config: the task process reports it (with what was handed over, the
    // same error the host would see).
  }
  const configEnv: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined) configEnv[name] = value;
  }
  return { configEnv, ...(config && { config }) };
}
