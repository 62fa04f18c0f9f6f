import type { AppConfig } from './app-config';
import { ConfigError } from './config-error';
import { DAYS_ALLOWED, RATIO_ALLOWED } from './source-schemas';

/** The variables `applyEnvOverrides` reads (a task process is handed them: supervisor/config-env.ts). */
export const ENV_OVERRIDE_NAMES = [
  'CONTEXT_STORAGE_ENABLED',
  'COMPRESSION_THRESHOLD',
  'CLEANUP_DAYS',
] as const;

/**
 * Environment variables of seed 000 §9.2 override the file, so a single run can be
 * changed without editing it. An empty variable counts as unset (`VAR= cwb ...`).
 */
export function applyEnvOverrides(config: AppConfig, env: NodeJS.ProcessEnv): void {
  const enabled = read(env, 'CONTEXT_STORAGE_ENABLED');
  if (enabled !== undefined) {
    const lower = enabled.toLowerCase();
    if (lower === 'true' || lower === '1') config.storage.enabled = true;
    else if (lower === 'false' || lower === '0') config.storage.enabled = false;
    else fail('CONTEXT_STORAGE_ENABLED', enabled, 'true, false, 1 or 0');
  }

  const threshold = read(env, 'COMPRESSION_THRESHOLD');
  if (threshold !== undefined) {
    const value = Number(threshold);
    if (!(Number.isFinite(value) && value > 0 && value <= 1)) {
      fail('COMPRESSION_THRESHOLD', threshold, RATIO_ALLOWED);
    }
    config.storage.compression_threshold = value;
  }

  const days = read(env, 'CLEANUP_DAYS');
  if (days !== undefined) {
    const value = Number(days);
    if (!/^\d+$/.test(days) || !Number.isSafeInteger(value) || value < 1) {
      fail('CLEANUP_DAYS', days, DAYS_ALLOWED);
    }
    config.storage.cleanup_days = value;
  }
}

function read(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function fail(name: string, value: string, allowed: string): never {
  throw new ConfigError(
    { file: null, key: name, value, allowed },
    `environment ${name}=${JSON.stringify(value)}: expected ${allowed}`,
  );
}
