import fs from 'node:fs';
import path from 'node:path';
import { cwbExecutable } from './cwb-executable';

/**
 * The `cwb` a host (`cwb serve`, the desktop app) writes into an agent's settings: the one
 * `cwbExecutable` names when that is a path, else the first `cwb` on PATH (the desktop app
 * is not itself a command an agent can run). Null when there is none.
 */
export function cwbForAgents(
  env: NodeJS.ProcessEnv,
  argv1: string | undefined = process.argv[1],
): string | null {
  const named = cwbExecutable(env, argv1);
  if (path.isAbsolute(named)) return named;
  const names = process.platform === 'win32' ? ['cwb.cmd', 'cwb.exe'] : ['cwb'];
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    for (const name of names) {
      const file = path.join(dir, name);
      if (isRunnable(file)) return file;
    }
  }
  return null;
}

function isRunnable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
