import { CwbError } from '../errors';
import type { CwbErrorCode } from '../errors';
import { isoTimestamp } from '../iso-timestamp';

export interface ConfigErrorDetails {
  /** The config file as the user named it, or null for environment variables. */
  file: string | null;
  /** Dotted key as written in the file (`context_storage.cleanup_days`) or the variable name. */
  key: string | null;
  /** The offending value, already redacted when it could be a secret. */
  value: unknown;
  /** What would have been accepted, in words. */
  allowed: string | null;
}

/**
 * A config problem the user fixes by editing one value. The message alone must be enough
 * to do that: where, which key, what it was, what is allowed.
 */
export class ConfigError extends CwbError {
  readonly file: string | null;
  readonly key: string | null;
  readonly value: unknown;
  readonly allowed: string | null;

  constructor(details: ConfigErrorDetails, message?: string, code: CwbErrorCode = 'bad_input') {
    super(code, message ?? defaultMessage(details));
    this.name = 'ConfigError';
    this.file = details.file;
    this.key = details.key;
    this.value = details.value;
    this.allowed = details.allowed;
  }
}

function defaultMessage({ file, key, value, allowed }: ConfigErrorDetails): string {
  const where = file === null ? 'environment' : file;
  return `${where}: ${key ?? '(top level)'} = ${formatValue(value)} is not allowed: expected ${allowed ?? 'a valid value'}`;
}

const MAX_SHOWN = 80;

/** A value as it would look in YAML-ish text, cut short so a long prompt stays one line. */
export function formatValue(value: unknown): string {
  if (value === undefined) return '(missing)';
  let text: string;
  if (typeof value === 'string') text = JSON.stringify(value);
  else if (value === null || typeof value === 'number' || typeof value === 'boolean')
    text = String(value);
  else if (value instanceof Date) text = isoTimestamp(value);
  else text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
}
