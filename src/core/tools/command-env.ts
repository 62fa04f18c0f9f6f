import { MIN_SCRUBBED_SECRET_LENGTH } from './tool-secrets';

/**
 * The environment run_command gives its shell. API keys must not reach commands the model
 * writes (a `curl` to anywhere, a test that logs its environment), so these are removed:
 *
 * - names ending in `_API_KEY`, `_TOKEN` or `_SECRET` (compared upper-case, since Windows
 *   names are case-insensitive), which covers OPENAI_API_KEY, ANTHROPIC_API_KEY,
 *   GITHUB_TOKEN, CLIENT_SECRET, ...;
 * - `OPENAI_API_KEY` and `ANTHROPIC_API_KEY` by name (already covered by the suffix rule,
 *   listed so the intent survives a change to it);
 * - any variable whose value is one of `secretValues` (the config's `${VAR}` secrets), so a
 *   key kept under an unusual name such as `MY_LLM_KEY` is removed too.
 *
 * Everything else (PATH, HOME, LANG, proxies, ...) is passed through so tools work as in the
 * user's own shell.
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

export function commandEnv(
  env: NodeJS.ProcessEnv,
  secretValues: readonly string[] = [],
): NodeJS.ProcessEnv {
  const secrets = new Set(secretValues.filter((value) => value !== ''));
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isSecretEnvName(name)) continue;
    // The LLM client reads keys trimmed, so a key with a stray newline is still the key.
    if (secrets.has(value) || secrets.has(value.trim())) continue;
    out[name] = value;
  }
  return out;
}
