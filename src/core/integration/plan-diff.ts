import { createTwoFilesPatch } from 'diff';
import { Redactor } from '../export/redaction';
import type { FileChange } from './install';

/**
 * The change to one file as a unified diff: what `cwb hooks install --dry-run` prints and
 * Settings › Agent integration shows before writing.
 */
export function changeDiff(change: FileChange, action: 'install' | 'uninstall'): string {
  return createTwoFilesPatch(
    change.file,
    change.file,
    change.before ?? '',
    change.after,
    change.before === null ? '(new file)' : '',
    `(after ${action})`,
  ).trimEnd();
}

/** A line of the diff longer than this (a settings file kept on one line) is cut. */
const MAX_LINE = 400;

// The value of a key named like a credential, in JSON (`"API_TOKEN": "…"`) or TOML
// (`api_key = "…"`): other MCP servers' `env` sits right beside ours in these files.
const SECRET_VALUE =
  /((?:"|\b)[\w.-]*(?:key|token|secret|password|passwd|credential|auth)[\w.-]*"?\s*[:=]\s*)"(?:[^"\\]|\\.)*"/gi;

/**
 * A diff for a screen that may be another machine's browser (`cwb serve`): the context lines
 * come from the user's own files, whose neighbours can be credentials. Keys of known shapes
 * and the configuration's secrets are replaced as exports replace them, values of keys named
 * like credentials are masked, and very long lines are cut.
 */
export function diffForScreen(diff: string, secrets: readonly string[]): string {
  const redactor = new Redactor({ secrets });
  return diff
    .split('\n')
    .map((line) => {
      const masked = redactor.redact(line).replace(SECRET_VALUE, '$1"[REDACTED]"');
      return masked.length > MAX_LINE ? `${masked.slice(0, MAX_LINE)}…` : masked;
    })
    .join('\n');
}
