import { REDACTED, scrubSecrets, secretForms } from '../config/secrets';
import type { ToolContext, ToolResult } from './tool-types';

/**
 * Keeping the task's secrets out of tool results. A command can print a key it finds
 * anywhere (its parent's /proc/<pid>/environ, a .env file, a config it greps), and what a
 * tool returns goes to messages.jsonl, current.jsonl, tools.jsonl, tool_outputs/, exports
 * and the model. So every result is scrubbed before anything records it.
 *
 * Secrets shorter than MIN_SCRUBBED_SECRET_LENGTH are left alone here: a short value (an
 * LM Studio placeholder key such as "lm", a `${VAR}` holding "1" or "test") would blank out
 * that text everywhere in the files the agent reads and break its work, and a value that
 * short is no credential worth the damage. They are still kept out of run_command's
 * environment (command-env.ts) and out of logs and LLM errors (config/secrets.ts).
 */
export const MIN_SCRUBBED_SECRET_LENGTH = 8;

/** The forms of `secrets` scrubbed from tool results (see config/secrets.ts `secretForms`). */
export function toolResultSecrets(secrets: readonly string[]): string[] {
  return secretForms(secrets, MIN_SCRUBBED_SECRET_LENGTH);
}

/** `text` without the context's secrets (in any form `toolResultSecrets` knows). */
export function scrubToolText(text: string, ctx: Pick<ToolContext, 'secretValues'>): string {
  const secrets = toolResultSecrets(ctx.secretValues ?? []);
  return secrets.length === 0 ? text : scrubSecrets(text, secrets);
}

/**
 * `text` that was cut short (an output stopped at the capture limit) without the start of
 * a secret at its very end: once cut, the whole secret is not there to be found, but most
 * of it can be. Run after `scrubToolText`.
 */
export function scrubCutTail(text: string, ctx: Pick<ToolContext, 'secretValues'>): string {
  for (const secret of toolResultSecrets(ctx.secretValues ?? [])) {
    for (let length = secret.length - 1; length >= MIN_SCRUBBED_SECRET_LENGTH; length--) {
      if (text.endsWith(secret.slice(0, length))) return text.slice(0, -length) + REDACTED;
    }
  }
  return text;
}

/** A tool result with its content and error scrubbed (see `scrubToolText`). */
export function scrubToolResult(
  result: ToolResult,
  ctx: Pick<ToolContext, 'secretValues'>,
): ToolResult {
  const content = scrubToolText(result.content, ctx);
  const error = result.error === undefined ? undefined : scrubToolText(result.error, ctx);
  if (content === result.content && error === result.error) return result;
  return { ...result, content, ...(error !== undefined && { error }) };
}
