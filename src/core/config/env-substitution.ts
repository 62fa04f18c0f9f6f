import { ConfigError, formatValue } from './config-error';

/**
 * `${VAR}` in a string value is replaced by that environment variable, so secrets such as
 * `api_key: "${OPENAI_API_KEY}"` stay out of the file. `$${VAR}` stands for a literal
 * `${VAR}`. An unset variable is an error: silently using "" would make the failure show
 * up much later as a confusing 401.
 */

export interface Substitution {
  /** Dotted key the value sits at, list positions in brackets (`a.b[0]`). */
  key: string;
  /** The value as written, e.g. "${OPENAI_API_KEY}"; safe to show. */
  written: string;
  /** The environment values that went into it; treat as secrets. */
  values: string[];
  /** The variables it names, in order. */
  names: string[];
}

const REFERENCE = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export function substituteEnv(
  value: unknown,
  path: string,
  env: NodeJS.ProcessEnv,
  file: string,
  found: Substitution[],
): unknown {
  if (typeof value === 'string') return substituteString(value, path, env, file, found);
  if (Array.isArray(value)) {
    return value.map((item, i) => substituteEnv(item, `${path}[${i}]`, env, file, found));
  }
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      out[key] = substituteEnv(child, `${path}.${key}`, env, file, found);
    }
    return out;
  }
  return value;
}

function substituteString(
  written: string,
  key: string,
  env: NodeJS.ProcessEnv,
  file: string,
  found: Substitution[],
): string {
  if (!written.includes('${')) return written;
  const values: string[] = [];
  const names: string[] = [];
  const result = written.replace(REFERENCE, (match: string, escaped: string, name: string) => {
    if (escaped !== '') return match.slice(1);
    const resolved = env[name];
    if (resolved === undefined) {
      throw new ConfigError(
        { file, key, value: written, allowed: `environment variable ${name} to be set` },
        `${file}: ${key} = ${formatValue(written)} refers to environment variable ${name}, which is not set`,
      );
    }
    values.push(resolved);
    names.push(name);
    return resolved;
  });
  if (values.length > 0) found.push({ key, written, values, names });
  return result;
}

/**
 * Every variable a config text refers to with `${VAR}` (escaped `$${VAR}` excepted),
 * comments included: a host hands a task process these variables' values without parsing
 * the file, so even a config that fails to load fails the same way in the task process.
 */
export function referencedEnvNames(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(REFERENCE)) if (match[1] === '') names.add(match[2]!);
  return [...names];
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)
  );
}
