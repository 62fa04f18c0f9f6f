import type { ContextStore } from '../store/context-store';
import type { TaskSupervisor } from '../supervisor/task-supervisor';
import type { LoadedConfig } from '../config/load-config';
import type { EventHub } from './event-hub';
import type { TaskLocks } from './task-locks';

export interface HostInfo {
  kind: 'electron' | 'serve';
  version: string;
  /** Runtime versions to show (node, electron, chrome). */
  versions: Record<string, string>;
}

/** What every feature's handlers work with; built once per host by createWorkbenchService. */
export interface ServiceContext {
  readonly store: ContextStore;
  readonly supervisor: TaskSupervisor;
  readonly events: EventHub;
  readonly locks: TaskLocks;
  readonly host: HostInfo;
  /** The config file the host was told to use; null = $CWB_CONFIG or the default location. */
  readonly configFile: string | null;
  readonly env: NodeJS.ProcessEnv;
  /** Where exports go when the request names no place. */
  readonly exportDir: string;
  readonly startedAt: string;
  /** The config as it is on disk now (settings can change while the host runs). */
  loadConfig(): LoadedConfig;
}
