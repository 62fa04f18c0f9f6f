import { inspect } from 'node:util';
import type { MainLogger } from 'electron-log';
import { MIN_LOGGED_SECRET_LENGTH, scrubSecrets, secretForms } from '../core/config/secrets';

/**
 * electron-log to userData/logs/main.log. Every message passes a hook that replaces the
 * known secrets (API keys of the config and the environment, `${VAR}` values; also
 * JSON-escaped or URL-encoded) before any transport writes it.
 */
export function setupLogging(log: MainLogger, secrets: () => readonly string[]): MainLogger {
  log.transports.file.level = 'info';
  log.transports.console.level = process.env['CWB_LOG_CONSOLE'] ? 'debug' : 'warn';
  log.hooks.push((message) => {
    const known = secretForms(secrets(), MIN_LOGGED_SECRET_LENGTH);
    if (known.length === 0) return message;
    return { ...message, data: message.data.map((item: unknown) => scrubItem(item, known)) };
  });
  log.errorHandler.startCatching({ showDialog: false });
  return log;
}

/** One logged value, scrubbed; an Error or object holding a secret becomes its text. */
function scrubItem(item: unknown, known: readonly string[]): unknown {
  if (typeof item === 'string') return scrubSecrets(item, known);
  if (item instanceof Error) return scrubSecrets(item.stack ?? item.message, known);
  if (typeof item !== 'object' || item === null) return item;
  // Objects are written with util.inspect by the transports; the same text, scrubbed.
  const text = inspect(item, { depth: 6, breakLength: Infinity });
  const scrubbed = scrubSecrets(text, known);
  return scrubbed === text ? item : scrubbed;
}
