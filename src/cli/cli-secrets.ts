import { MIN_LOGGED_SECRET_LENGTH, scrubSecrets, secretForms } from '../core/config/secrets';
import { processSecrets } from '../core/llm/process-secrets';
import type { Output } from './output';

/** Secrets learnt while a command runs: its config's, `cwb serve`'s access token. */
const remembered = new Set<string>();

export function rememberSecrets(values: readonly string[]): void {
  for (const value of values) if (value !== '') remembered.add(value);
}

/**
 * `output` whose stderr never carries a secret the process knows (the environment's keys,
 * the loaded config's, the access token): error lines echo their input — a task id, a path,
 * a stack — and stderr ends up in terminals' scrollback, CI logs and service journals.
 * Stdout is left alone: it holds what was asked for, `cwb serve`'s URL with its token
 * included, and contexts are scrubbed where they are written.
 */
export function scrubbingOutput(output: Output, env: NodeJS.ProcessEnv): Output {
  const fromEnv = processSecrets(null, env);
  return {
    out: (text) => output.out(text),
    err: (text) =>
      output.err(
        scrubSecrets(text, secretForms([...fromEnv, ...remembered], MIN_LOGGED_SECRET_LENGTH)),
      ),
  };
}
