import os from 'node:os';
import path from 'node:path';

export interface ConfigPathOptions {
  platform?: NodeJS.Platform;
  home?: string;
  cwd?: string;
}

/**
 * Where config.yaml lives when no file is named: `$CWB_CONFIG`, else the platform's
 * config folder. XDG_CONFIG_HOME is honoured on Linux and other Unixes only; macOS and
 * Windows have their own conventions and a stray XDG variable should not move the file.
 */
export function defaultConfigPath(
  env: NodeJS.ProcessEnv = process.env,
  options: ConfigPathOptions = {},
): string {
  const platform = options.platform ?? process.platform;
  const home = options.home ?? os.homedir();
  const explicit = env.CWB_CONFIG;
  if (explicit) return path.resolve(options.cwd ?? process.cwd(), explicit);

  if (platform === 'win32') {
    const appData = env.APPDATA || path.win32.join(home, 'AppData', 'Roaming');
    return path.win32.join(appData, 'Context Workbench', 'config.yaml');
  }
  if (platform === 'darwin') {
    return path.posix.join(
      home,
      'Library',
      'Application Support',
      'Context Workbench',
      'config.yaml',
    );
  }
  const xdg = env.XDG_CONFIG_HOME;
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const base = xdg && path.posix.isAbsolute(xdg) ? xdg : path.posix.join(home, '.config');
  return path.posix.join(base, 'context-workbench', 'config.yaml');
}
