import fs from 'node:fs';
import path from 'node:path';
import type { CompactionStrategyName, SettingsView, WorkbenchSettings } from '../../shared/api';
import type { WorkbenchHandlers } from '../../shared/api/workbench-api';
import type { AppConfig } from '../config/app-config';
import { ConfigError } from '../config/config-error';
import { defaultConfigPath } from '../config/config-path';
import { parseConfigText } from '../config/load-config';
import { redactConfig } from '../config/secrets';
import type { StrategyName } from '../config/strategy-names';
import { writeFileAtomic } from '../jsonl/atomic-write';
import { FieldError } from './field-error';
import type { ServiceContext } from './service-context';
import {
  applyPatch,
  leaves,
  readConfigDocument,
  referencesIn,
  sameValue,
  valueAt,
  type Leaf,
} from './settings-document';
import { canonicalKey, type KeyPath } from './settings-keys';

// The UI's settings shape and the engine's config must stay the same shape (both ways).
const fromEngine = (config: AppConfig): WorkbenchSettings => config;
const toEngine = (settings: WorkbenchSettings): AppConfig => settings;
const sameStrategies = (name: StrategyName): CompactionStrategyName => name;
void fromEngine;
void toEngine;
void sameStrategies;

/** Seed 000 §9.2's variables, which override the file (shown so the UI can say why). */
const ENV_OVERRIDES: Record<string, string> = {
  'storage.enabled': 'CONTEXT_STORAGE_ENABLED',
  'storage.compression_threshold': 'COMPRESSION_THRESHOLD',
  'storage.cleanup_days': 'CLEANUP_DAYS',
};

/** Normalized by the loader (URLs completed, folders resolved) or secret: never compared. */
const NOT_COMPARED = /(^contexts_dir$|\.base_url$|\.api_key$)/;

export function settingsHandlers(
  ctx: ServiceContext,
): Pick<WorkbenchHandlers, 'getSettings' | 'updateSettings'> {
  const target = (file: string | null): string =>
    file ?? (ctx.configFile ? path.resolve(ctx.configFile) : defaultConfigPath(ctx.env));
  const envSet = (name: string): boolean => (ctx.env[name]?.trim() ?? '') !== '';

  const view = (): SettingsView => {
    const { config, file } = ctx.loadConfig();
    const where = target(file);
    const keys = leaves(config).map((l) => l.key);
    return {
      file,
      target: where,
      settings: redactConfig(config),
      references: file ? referencesIn(readConfigDocument(file), keys) : {},
      envOverrides: Object.values(ENV_OVERRIDES).filter(envSet),
      contextsRoot: ctx.store.root,
    };
  };

  return {
    getSettings: async () => view(),

    updateSettings: async ({ patch }) => {
      const { config, file } = ctx.loadConfig();
      const where = target(file);
      const doc = readConfigDocument(where);
      const requested = leaves(patch);
      const changed = applyPatch(doc, requested, config, redactConfig(config));
      const keys = leaves(config).map((l) => l.key);
      let next: AppConfig = config;
      if (changed.length > 0) {
        const text = doc.toString();
        next = validate(text, where, ctx.env, keys);
        fs.mkdirSync(path.dirname(where), { recursive: true });
        const mode = fs.statSync(where, { throwIfNoEntry: false })?.mode;
        writeFileAtomic(where, text, { mode: mode === undefined ? 0o600 : mode & 0o777 });
      }
      return {
        ...view(),
        notApplied: notApplied(requested, changed, next, envSet),
        restartRequired: changed.includes('contexts_dir'),
      };
    },
  };
}

/** The new text must load exactly as the app will load it; an error names the setting. */
function validate(
  text: string,
  file: string,
  env: NodeJS.ProcessEnv,
  keys: readonly KeyPath[],
): AppConfig {
  try {
    return parseConfigText(text, { file, baseDir: path.dirname(file), env });
  } catch (err) {
    if (err instanceof ConfigError) {
      const key = err.key === null ? undefined : canonicalKey(err.key, keys);
      if (key) throw new FieldError(`patch.${key}`, err.message);
    }
    throw err;
  }
}

function notApplied(
  requested: readonly Leaf[],
  changed: readonly string[],
  next: AppConfig,
  envSet: (name: string) => boolean,
): { key: string; reason: string }[] {
  const out: { key: string; reason: string }[] = [];
  for (const { key, value } of requested) {
    const name = key.join('.');
    if (!changed.includes(name) || value === null || NOT_COMPARED.test(name)) continue;
    if (sameValue(valueAt(next, key), value)) continue;
    const variable = ENV_OVERRIDES[name];
    out.push({
      key: name,
      reason:
        variable && envSet(variable)
          ? `the environment variable ${variable} overrides it`
          : 'another setting in config.yaml takes precedence',
    });
  }
  return out;
}
