import { noInput } from './common-schemas';
import { operation } from './operation';

export interface AppInfo {
  name: string;
  version: string;
  /** Which host answers: the desktop app or `cwb serve`. */
  host: 'electron' | 'serve';
  platform: string;
  contextsRoot: string;
  configFile: string | null;
  /** Runtime versions (node, electron when the desktop app). */
  versions: Record<string, string>;
  startedAt: string;
}

export const appOperations = {
  appInfo: operation(noInput).returns<AppInfo>(),
};
