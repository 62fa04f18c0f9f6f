import os from 'node:os';
import type { AppConfig } from '../config/app-config';
import { processSecrets } from '../llm/process-secrets';
import { redactsByDefault, type ExportFormat } from './export-tasks';
import type { RedactionOptions } from './redaction';

/** What the person asked for: `secrets` turns redaction on, `home` adds home folders. */
export interface RedactionRequest {
  secrets: boolean;
  home: boolean;
}

/**
 * The redaction an export runs with: as asked, else the format's default; the known secrets
 * are the configuration's and the environment's (API keys, `${VAR}` values, `*_TOKEN`…).
 * A configuration that does not load still leaves the environment's secrets to remove: an
 * export must not fail, nor leak, because config.yaml has a typo.
 */
export function redactionFor(
  format: ExportFormat,
  asked: RedactionRequest | undefined,
  config: () => AppConfig | null,
  env: NodeJS.ProcessEnv,
): RedactionOptions | null {
  const on = asked ? asked.secrets : redactsByDefault(format);
  if (!on) return null;
  return {
    secrets: processSecrets(loadedOrNull(config), env),
    homeFolders: asked?.home ? { home: env.HOME ?? os.homedir() } : null,
  };
}

function loadedOrNull(config: () => AppConfig | null): AppConfig | null {
  try {
    return config();
  } catch {
    return null;
  }
}
