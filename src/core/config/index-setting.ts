import fs from 'node:fs';
import yaml from 'js-yaml';
import { ConfigError, formatValue } from './config-error';
import { isPlainObject, substituteEnv, type Substitution } from './env-substitution';

const ALLOWED = 'a PostgreSQL URL like postgres://user@host/db, or sqlite (the default)';

/**
 * config.yaml's top-level `index:` (docs/fleet.md): the PostgreSQL task index a fleet of
 * hosts shares; null = tasks.db. Read apart from the app config: it chooses where the
 * task table lives, which no settings screen should change under a running host.
 * `${VAR}` keeps a password out of the file.
 */
export function readIndexSetting(file: string | null, env: NodeJS.ProcessEnv): string | null {
  if (file === null || !fs.existsSync(file)) return null;
  let document: unknown;
  try {
    document = yaml.load(fs.readFileSync(file, 'utf8'));
  } catch {
    return null; // loadConfig reports the syntax error with its position
  }
  if (!isPlainObject(document)) return null;
  const written = document.index;
  if (written === undefined || written === null || written === 'sqlite') return null;
  const found: Substitution[] = [];
  const value = substituteEnv(written, 'index', env, file, found);
  if (typeof value !== 'string' || !/^postgres(ql)?:\/\/[^/]/.test(value)) {
    throw new ConfigError(
      { file, key: 'index', value: written, allowed: ALLOWED },
      `${file}: index: expected ${ALLOWED}, found ${formatValue(written)}`,
    );
  }
  return value;
}
