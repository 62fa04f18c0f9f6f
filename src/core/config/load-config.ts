import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import type { z } from 'zod';
import type { AppConfig } from './app-config';
import { ConfigError, formatValue } from './config-error';
import { parsePricing } from '../cost/pricing-config';
import type { ModelPrice } from '../cost/price-table';
import { defaultConfigPath } from './config-path';
import { applyEnvOverrides } from './env-overrides';
import { isPlainObject, substituteEnv } from './env-substitution';
import type { Substitution } from './env-substitution';
import { mapSources } from './map-config';
import type { ConfigSources } from './map-config';
import { REDACTED, trackSecrets } from './secrets';
import {
  SOURCE_SECTIONS,
  allowedAt,
  describeSection,
  sectionAt,
  sectionKeys,
} from './source-schemas';
import type { SourceSectionName } from './source-schemas';
import { MAX_CONFIG_BYTES, checkAliasExpansion } from './yaml-limits';

export interface LoadConfigOptions {
  /** A config file the user named; null or undefined = the default path. */
  file?: string | null;
  env?: NodeJS.ProcessEnv;
}

export interface LoadedConfig {
  config: AppConfig;
  /** Absolute path of the file that was read, or null when defaults were used. */
  file: string | null;
  /** The file's `pricing:` section (dollars per million tokens by model); absent = none. */
  pricing?: Record<string, ModelPrice>;
}

/**
 * Reads config.yaml and the environment into the canonical config. A file the user
 * named (option or $CWB_CONFIG) must exist; the default file is optional.
 */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const named = options.file ? options.file : null;
  const file = named !== null ? path.resolve(named) : defaultConfigPath(env);
  const explicit = named !== null || Boolean(env.CWB_CONFIG);
  const shown = named ?? file;

  let text: string;
  try {
    text = readBounded(file, shown);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !explicit) {
      const config = parseConfigText('', { file: shown, baseDir: path.dirname(file), env });
      return { config, file: null, pricing: {} };
    }
    const details = { file: shown, key: null, value: null, allowed: null };
    if (code === 'ENOENT')
      throw new ConfigError(details, `config file not found: ${shown}`, 'not_found');
    throw new ConfigError(
      details,
      `${shown}: cannot read config file (${code ?? String(error)})`,
      'io',
    );
  }
  const parsed = parseConfigFile(text, { file: shown, baseDir: path.dirname(file), env });
  return { ...parsed, file };
}

/** The file's text, refused unread when it is larger than any config file could be. */
function readBounded(file: string, shown: string): string {
  const fd = fs.openSync(file, 'r');
  try {
    const { size } = fs.fstatSync(fd);
    if (size > MAX_CONFIG_BYTES) {
      throw new ConfigError(
        { file: shown, key: null, value: null, allowed: `at most ${MAX_CONFIG_BYTES} bytes` },
        `${shown}: the config file is ${size} bytes; more than ${MAX_CONFIG_BYTES} is not a config file`,
      );
    }
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

export interface ParseConfigOptions {
  /** Name used in error messages. */
  file: string;
  /** Folder relative base_dir values are resolved against (the config file's folder). */
  baseDir: string;
  env: NodeJS.ProcessEnv;
}

/** The config a YAML text describes, with `${VAR}`s and environment overrides applied. */
export function parseConfigText(text: string, options: ParseConfigOptions): AppConfig {
  return parseConfigFile(text, options).config;
}

/** The config and the `pricing:` section (kept apart: the settings UI edits only the config). */
function parseConfigFile(
  text: string,
  options: ParseConfigOptions,
): { config: AppConfig; pricing: Record<string, ModelPrice> } {
  const { file, env } = options;
  const document = parseYaml(text, file);
  const sources: ConfigSources = {};
  const substitutions: Substitution[] = [];
  for (const name of Object.keys(SOURCE_SECTIONS) as SourceSectionName[]) {
    const written = document[name];
    if (written === undefined || written === null) continue;
    const schema: z.ZodType = SOURCE_SECTIONS[name];
    checkAliasExpansion(name, written, file);
    const resolved = substituteEnv(written, name, env, file, substitutions);
    const result = schema.safeParse(resolved);
    if (!result.success) throw issueError(result.error.issues, name, schema, written, file);
    // Each section parsed with its own schema; the result has that schema's output type.
    Object.assign(sources, { [name]: result.data });
  }
  const config = mapSources(sources, options.baseDir);
  checkPassthrough(config, substitutions, file);
  const pricing = parsePricing(document.pricing, file);
  applyEnvOverrides(config, env);
  trackSecrets(
    config,
    substitutions.filter((s) => !s.key.endsWith('base_dir')).flatMap((s) => s.values),
  );
  return { config, pricing };
}

/**
 * `tools.env_passthrough` must not pass a variable the config itself reads a value from
 * (`api_key: "${MY_LLM_KEY}"`): that value is a secret whatever the variable is called.
 */
function checkPassthrough(config: AppConfig, substitutions: Substitution[], file: string): void {
  const passed = config.tools.env_passthrough;
  for (const s of substitutions) {
    if (s.key.endsWith('base_dir')) continue;
    const name = s.names.find((n) => passed.includes(n));
    if (name === undefined) continue;
    const i = passed.indexOf(name);
    throw new ConfigError(
      {
        file,
        key: `tools.env_passthrough[${i}]`,
        value: name,
        allowed: 'a variable the config does not read a value from',
      },
      `${file}: tools.env_passthrough[${i}] = ${formatValue(name)} is not allowed: ${s.key} reads its value ("${s.written}"), so it is treated as a secret and never passed to commands`,
    );
  }
}

function parseYaml(text: string, file: string): Record<string, unknown> {
  let document: unknown;
  try {
    document = yaml.load(text, { filename: file });
  } catch (error) {
    if (error instanceof yaml.YAMLException) {
      // Some errors (several documents in one file) come without a position.
      const mark = error.mark as yaml.YAMLException['mark'] | undefined;
      const where = mark ? `${file}:${mark.line + 1}:${mark.column + 1}` : file;
      throw new ConfigError(
        { file, key: null, value: null, allowed: 'valid YAML' },
        `${where}: YAML syntax error: ${error.reason}`,
      );
    }
    throw error;
  }
  if (document === undefined || document === null) return {};
  if (!isPlainObject(document)) {
    const found = Array.isArray(document) ? 'a list' : `the value ${formatValue(document)}`;
    throw new ConfigError(
      { file, key: null, value: document, allowed: 'a mapping of keys to values' },
      `${file}: the top level must be a mapping of keys to values (like "context_storage:"), found ${found}`,
    );
  }
  return document;
}

function issueError(
  issues: readonly z.core.$ZodIssue[],
  section: string,
  schema: z.ZodType,
  written: unknown,
  file: string,
): ConfigError {
  const issue = issues[0];
  if (issue === undefined)
    return new ConfigError({ file, key: section, value: written, allowed: null });
  const dotted = (segments: readonly PropertyKey[]) => dottedKey(section, segments);

  if (issue.code === 'unrecognized_keys') {
    const [first, ...others] = issue.keys;
    const keyPath = [...issue.path, first ?? ''];
    const owner = sectionAt(schema, issue.path) ?? schema;
    const known = sectionKeys(owner).join(', ');
    const key = dotted(keyPath);
    const value = shownValue(written, keyPath);
    const also = others.length > 0 ? `; also unknown: ${others.join(', ')}` : '';
    const meant = sameKeyOtherSpelling(first ?? '', sectionKeys(owner));
    const hint = meant === undefined ? '' : `, did you mean ${meant}?`;
    return new ConfigError(
      { file, key, value, allowed: describeSection(owner) },
      `${file}: ${key} = ${formatValue(value)} is not allowed: unknown key${hint} (${dotted(issue.path)} accepts ${known})${also}`,
    );
  }
  // A rule spanning several values (a repeated list item) says itself what it expects.
  const own =
    issue.code === 'custom' ? (issue.params as { allowed?: unknown } | undefined) : undefined;
  return new ConfigError({
    file,
    key: dotted(issue.path),
    value: shownValue(written, issue.path),
    allowed: typeof own?.allowed === 'string' ? own.allowed : allowedAt(schema, issue.path),
  });
}

/** `compaction.pipeline[1]`: keys joined by dots, list positions in brackets. */
function dottedKey(section: string, segments: readonly PropertyKey[]): string {
  return segments.reduce<string>(
    (key, segment) =>
      typeof segment === 'number' ? `${key}[${segment}]` : `${key}.${String(segment)}`,
    section,
  );
}

/**
 * The known key the user meant when only the spelling convention differs
 * (`threshold_ratio` for seed 002's `thresholdRatio`, `maxMessages` for `max_messages`).
 */
function sameKeyOtherSpelling(key: string, known: readonly string[]): string | undefined {
  const bare = (k: string) => k.toLowerCase().replace(/[_-]/g, '');
  return known.find((k) => bare(k) === bare(key));
}

/**
 * The value as the user wrote it, so a `${VAR}` shows as the reference and never as the
 * secret it expands to; a literal API key is hidden outright, and so is the password of a
 * URL (`https://user:***@proxy`), valid or not: the message reaches stderr and logs.
 */
function shownValue(written: unknown, segments: readonly PropertyKey[]): unknown {
  let value = written;
  for (const segment of segments) {
    if (isPlainObject(value)) value = value[String(segment)];
    else if (Array.isArray(value) && typeof segment === 'number') value = value[segment] as unknown;
    else value = undefined;
  }
  const isReference = typeof value === 'string' && /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(value);
  if (segments[segments.length - 1] === 'api_key' && !isReference) return REDACTED;
  return typeof value === 'string' ? value.replace(URL_PASSWORD, `$1${REDACTED}@`) : value;
}

/** `//user:password@` in a URL-like text: the part kept and the password. */
const URL_PASSWORD = /(\/\/[^/?#@\s:]*:)[^/?#\s]*@/g;
