import type { MainLogger } from 'electron-log';
import { scrubSecrets } from '../core/config/secrets';

/**
 * electron-log to userData/logs/main.log. Every message passes a hook that replaces the
 * config's secrets (API keys, `${VAR}` values) before any transport writes it.
 */
export function setupLogging(log: MainLogger, secrets: () => readonly string[]): MainLogger {
  log.transports.file.level = 'info';
  log.transports.console.level = process.env['CWB_LOG_CONSOLE'] ? 'debug' : 'warn';
  log.hooks.push((message) => {
    const known = secrets();
    if (known.length === 0) return message;
    return {
      ...message,
      data: message.data.map((item: unknown) =>
        typeof item === 'string'
          ? scrubSecrets(item, known)
          : item instanceof Error
            ? scrubSecrets(item.stack ?? item.message, known)
            : item,
      ),
    };
  });
  log.errorHandler.startCatching({ showDialog: false });
  return log;
}
