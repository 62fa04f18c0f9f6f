import fs from 'node:fs';
import path from 'node:path';
import { defaultConfigPath } from '../config/config-path';
import { isoTimestamp } from '../iso-timestamp';

/**
 * The hooks' log: `logs/hooks.log` in the workbench's user folder (beside config.yaml, the
 * folder the app's own `logs/main.log` is in on Linux). A hook cannot tell the user anything
 * on stdout or stderr without changing what the agent does, so this is where it says why
 * it did not answer. Lines name the event, the session and the reason, never the
 * transcript's content.
 */
export function hookLogPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(path.dirname(defaultConfigPath(env)), 'logs', 'hooks.log');
}

/** Appends one line; a log that cannot be written is given up on silently. */
export function logHookLine(line: string, env: NodeJS.ProcessEnv = process.env): void {
  try {
    const file = hookLogPath(env);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.appendFileSync(file, `${isoTimestamp()} ${line.replace(/[\r\n]+/g, ' ')}\n`);
  } catch {
    // Nowhere left to say it: the hook's promise is to never disturb the agent.
  }
}
