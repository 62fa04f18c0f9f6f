import { allowListedEnv } from '../supervisor/allowed-env';
import { MIN_SCRUBBED_SECRET_LENGTH } from './tool-secrets';

/**
 * Variables named like secrets: names ending in `_API_KEY`, `_TOKEN` or `_SECRET` (compared
 * upper-case, since Windows names are case-insensitive), which covers OPENAI_API_KEY,
 * ANTHROPIC_API_KEY, GITHUB_TOKEN, CLIENT_SECRET, .... Their long values are scrubbed from
 * what a process records (`secretEnvValues`); what a command gets is decided by an
 * allow-list (`commandEnv`), not by this.
 */
const SECRET_SUFFIXES = ['_API_KEY', '_TOKEN', '_SECRET'];
const SECRET_NAMES = new Set(['OPENAI_API_KEY', 'ANTHROPIC_API_KEY']);

export function isSecretEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_NAMES.has(upper) || SECRET_SUFFIXES.some((suffix) => upper.endsWith(suffix));
}

/**
 * The values of `env`'s variables named like secrets (see `isSecretEnvName`): a command
 * cannot see them in its own environment but can read its parent's (/proc/$PPID/environ
 * on Linux), so they are scrubbed from tool results too. Short values are left out: they
 * would not be scrubbed (tool-secrets.ts) and, passed to `commandEnv`, would drop every
 * variable that happens to hold the same "1" or "true".
 */
export function secretEnvValues(env: NodeJS.ProcessEnv): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !isSecretEnvName(name)) continue;
    for (const form of [value, value.trim()]) {
      if (form.length >= MIN_SCRUBBED_SECRET_LENGTH) values.add(form);
    }
  }
  return [...values];
}

export interface CommandEnvOptions {
  /** Config `tools.env_passthrough`: more names a command gets, validated by the config. */
  passthrough?: readonly string[];
  /** Where passed-through values are read: the task's in-memory env (handed over by the host). */
  from?: NodeJS.ProcessEnv;
  /** The task's secrets: a variable holding one is never passed, whatever its name. */
  secretValues?: readonly string[];
}

/**
 * The environment of a command a tool starts (run_command's shell): the allow-listed part
 * of `env` (supervisor/allowed-env.ts: PATH, HOME, the locale, …) plus the variables the
 * config names in `tools.env_passthrough`. An allow-list, not a deny-list: a key under a
 * name nobody thought of does not get through either. As a last guard, a variable holding
 * one of the task's secrets is dropped whatever its name.
 */
export function commandEnv(
  env: NodeJS.ProcessEnv,
  options: CommandEnvOptions = {},
): NodeJS.ProcessEnv {
  const secrets = new Set((options.secretValues ?? []).filter((value) => value !== ''));
  const from = options.from ?? env;
  const candidates: NodeJS.ProcessEnv = { ...allowListedEnv(env) };
  for (const name of options.passthrough ?? []) {
    const value = from[name];
    if (value !== undefined) candidates[name] = value;
  }
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(candidates)) {
    if (value === undefined || isSecretEnvName(name)) continue;
    // The LLM client reads keys trimmed, so a key with a stray newline is still the key.
    if (secrets.has(value) || secrets.has(value.trim())) continue;
    out[name] = value;
  }
  return out;
}
