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

export function commandEnv(
  env: NodeJS.ProcessEnv,
  secretValues: readonly string[] = [],
): NodeJS.ProcessEnv {
  const secrets = new Set(secretValues.filter((value) => value !== ''));
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isSecretEnvName(name) || secrets.has(value)) continue;
    out[name] = value;
  }
  return out;
}
