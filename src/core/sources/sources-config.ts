import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { z } from 'zod';
import { ConfigError, formatValue } from '../config/config-error';
import { defaultConfigPath } from '../config/config-path';
import { homeOf, sourceKinds, type SourceKind } from './source-kinds';
import { QUIET_MS } from './sync-file';

/**
 * config.yaml's `sources:` section (its own reader: the section is validated here, against
 * the kinds registered, so a new format's source needs no change to the app config):
 *
 *   sources:
 *     watch: true              # cwb serve and the app follow sources live
 *     poll: false              # poll instead of file-system events (network mounts)
 *     poll_interval_ms: 1000
 *     quiet_ms: 5000           # a file still this long: its last reply is complete
 *     claude-code:
 *       enabled: true
 *       folders: [~/.claude/projects]   # replaces the default folders
 *     aider:
 *       folders: [~/work/project-a]
 */
export interface SourceSettings {
  id: string;
  label: string;
  enabled: boolean;
  folders: string[];
  /** Folders come from config.yaml (not the agent's defaults). */
  configured: boolean;
  kind: SourceKind;
}

export interface SourcesConfig {
  watch: boolean;
  poll: boolean;
  pollIntervalMs: number;
  /** A session file still this long has its last reply complete (src/core/sources/sync-file.ts). */
  quietMs: number;
  sources: SourceSettings[];
  /** The config file read, or null when there is none. */
  file: string | null;
}

const kindSchema = z.strictObject({
  enabled: z.boolean().optional(),
  folders: z.array(z.string().min(1)).optional(),
});

const ALLOWED: Record<string, string> = {
  watch: 'true or false',
  poll: 'true or false',
  poll_interval_ms: 'a whole number of milliseconds from 100 to 600000',
  quiet_ms: 'a whole number of milliseconds from 0 to 600000',
  enabled: 'true or false',
  folders: 'a list of folders (absolute, ~/…, or relative to config.yaml)',
};

function sectionSchema(): z.ZodType {
  const kinds: Record<string, z.ZodType> = {};
  for (const kind of sourceKinds()) kinds[kind.id] = kindSchema.nullish();
  return z.strictObject({
    watch: z.boolean().nullish(),
    poll: z.boolean().nullish(),
    poll_interval_ms: z.number().int().min(100).max(600_000).nullish(),
    quiet_ms: z.number().int().min(0).max(600_000).nullish(),
    ...kinds,
  });
}

export function loadSourcesConfig(options: {
  file?: string | null;
  env?: NodeJS.ProcessEnv;
}): SourcesConfig {
  const env = options.env ?? process.env;
  const file = options.file ? path.resolve(options.file) : defaultConfigPath(env);
  let text = '';
  let found = true;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    found = false;
  }
  return parseSourcesConfig(text, found ? file : null, env);
}

export function parseSourcesConfig(
  text: string,
  file: string | null,
  env: NodeJS.ProcessEnv = process.env,
): SourcesConfig {
  let doc: unknown;
  try {
    doc = yaml.load(text);
  } catch (err) {
    throw new ConfigError(
      { file, key: null, value: null, allowed: 'valid YAML' },
      `${file ?? 'config'}: not valid YAML (${(err as Error).message.split('\n')[0]})`,
    );
  }
  const written =
    typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>).sources : undefined;
  const parsed = sectionSchema().safeParse(written ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : ([] as string[]);
    const at = ['sources', ...issue.path.map(String), ...keys.slice(0, 1)];
    const value = valueAt(written, [...issue.path.map(String), ...keys.slice(0, 1)]);
    const last = at[at.length - 1]!;
    const allowed =
      issue.code !== 'unrecognized_keys'
        ? (ALLOWED[last] ?? 'a mapping with the keys enabled, folders')
        : at.length > 2
          ? 'one of the keys enabled, folders'
          : `one of the keys watch, poll, poll_interval_ms, quiet_ms, ${sourceKinds()
              .map((k) => k.id)
              .join(', ')}`;
    throw new ConfigError(
      { file, key: at.join('.'), value, allowed },
      `${file ?? 'config'}: ${at.join('.')}${issue.code === 'unrecognized_keys' ? ' is not a known key' : ` = ${formatValue(value)} is not allowed`}: expected ${allowed}`,
    );
  }
  const section = parsed.data as Record<string, unknown>;
  const base = file ? path.dirname(file) : process.cwd();
  // CWB_SOURCES_WATCH=0 turns watching off whatever the file says (tests, CI, a shared host).
  const watchEnv = env.CWB_SOURCES_WATCH;
  const watchOff = watchEnv !== undefined && /^(0|false|no|off)$/i.test(watchEnv);
  return {
    watch: !watchOff && ((section.watch as boolean | null | undefined) ?? true),
    poll: (section.poll as boolean | null | undefined) ?? false,
    pollIntervalMs: (section.poll_interval_ms as number | null | undefined) ?? 1000,
    quietMs: (section.quiet_ms as number | null | undefined) ?? QUIET_MS,
    file,
    sources: sourceKinds().map((kind) => {
      const own = section[kind.id] as z.infer<typeof kindSchema> | null | undefined;
      const folders = own?.folders?.map((f) => resolveFolder(f, base, env));
      return {
        id: kind.id,
        label: kind.label,
        enabled: own?.enabled ?? true,
        folders: folders ?? kind.defaultFolders(env),
        configured: folders !== undefined,
        kind,
      };
    }),
  };
}

export function resolveFolder(folder: string, base: string, env: NodeJS.ProcessEnv): string {
  if (folder === '~' || folder.startsWith('~/')) return path.join(homeOf(env), folder.slice(1));
  return path.resolve(base, folder);
}

function valueAt(value: unknown, keys: string[]): unknown {
  let current = value;
  for (const key of keys) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
