import { INDEX_URL_ENV } from '../db/open-task-index';
import type { ApiResult } from '../../shared/api/api-result';
import type { Unsubscribe, WorkbenchEvent } from '../../shared/api/events';
import type { WorkbenchHandlers } from '../../shared/api/workbench-api';
import { loadConfig } from '../config/load-config';
import { ContextStore } from '../store/context-store';
import { TaskSupervisor } from '../supervisor/task-supervisor';
import type { ForkWorker } from '../supervisor/worker-handle';
import { appHandlers } from './app-handlers';
import { compactionHandlers } from './compaction-handlers';
import { controlHandlers } from './control-handlers';
import { EventHub } from './event-hub';
import { invokeOperation } from './invoke-operation';
import { messagesHandlers } from './messages-handlers';
import type { HostInfo, ServiceContext } from './service-context';
import { providerTestHandlers } from './provider-test-handlers';
import { settingsHandlers } from './settings-handlers';
import { searchUsageHandlers } from './search-usage-handlers';
import { startSearchUpkeep } from '../search/search-upkeep';
import { sourcesHandlers, startSourceWatcher } from '../sources/sources-handlers';
import { integrationHandlers } from '../integration/integration-handlers';
import { TaskLocks } from './task-locks';
import { tasksHandlers } from './tasks-handlers';
import { taskViewHandlers } from './task-view-handlers';
import { watchTasksTable } from './tasks-watcher';
import { toolOutputsHandlers } from './tool-outputs-handlers';
import { transferHandlers } from './transfer-handlers';
import { isoTimestamp } from '../iso-timestamp';

export interface WorkbenchServiceOptions {
  contextsRoot: string;
  /** The config file named by the user; null = $CWB_CONFIG or the default location. */
  configFile: string | null;
  /** Starts task processes: child_process.fork (`cwb serve`) or utilityProcess.fork (the app). */
  fork: ForkWorker;
  host: HostInfo;
  exportDir: string;
  env?: NodeJS.ProcessEnv;
  /** fsync every append (config storage.durability). */
  fsync?: boolean;
  /** Poll interval for changes made by other processes (default 1.5 s). */
  pollMs?: number;
  /** Unexpected handler errors, for the host's log. */
  onUnexpectedError?: (operation: string, err: unknown) => void;
  /** Watch the sources of config.yaml (`sources:`) and push what they add (serve, the app). */
  watchSources?: boolean;
}

export interface WorkbenchService {
  readonly handlers: WorkbenchHandlers;
  readonly root: string;
  /** Validates and runs one operation; never throws. */
  invoke(name: string, raw: unknown): Promise<ApiResult<unknown>>;
  subscribe(listener: (event: WorkbenchEvent) => void): Unsubscribe;
  /**
   * Resolves once the first sync of the sources is done and they are watched (at once when
   * sources are not watched); rejects when config.yaml's `sources:` is invalid.
   */
  readonly sourcesReady: Promise<void>;
  /** Pauses supervised tasks (killing what lingers), then closes the store. */
  close(graceMs?: number): Promise<void>;
}

/**
 * The workbench API over the engine, for any transport (DESIGN.md §3: one API, several
 * transports). Each feature's handlers live in their own file; this only wires them to
 * one store, one supervisor and one event hub.
 */
export function createWorkbenchService(options: WorkbenchServiceOptions): WorkbenchService {
  const env = options.env ?? process.env;
  const store = ContextStore.open(options.contextsRoot, {
    fsync: options.fsync ?? false,
    // The index the app or `cwb serve` chose (docs/fleet.md); unset = tasks.db.
    index: env[INDEX_URL_ENV] || undefined,
  });
  const supervisor = new TaskSupervisor({
    fork: options.fork,
    contextsRoot: store.root,
    configFile: options.configFile,
    env,
  });
  const events = new EventHub();
  supervisor.on('event', (event) => events.publish(event));
  supervisor.on('exit', (exit) =>
    events.publish({
      type: 'task-exit',
      uuid: exit.uuid,
      status: exit.status,
      code: exit.code,
      signal: exit.signal,
    }),
  );
  const stopWatching = watchTasksTable(store.repo, events, options.pollMs);
  const ctx: ServiceContext = {
    store,
    supervisor,
    events,
    locks: new TaskLocks(),
    host: options.host,
    configFile: options.configFile,
    env,
    exportDir: options.exportDir,
    startedAt: isoTimestamp(),
    loadConfig: () => loadConfig({ file: options.configFile, env }),
  };
  const handlers: WorkbenchHandlers = {
    ...appHandlers(ctx),
    ...tasksHandlers(ctx),
    ...messagesHandlers(ctx),
    ...compactionHandlers(ctx),
    ...toolOutputsHandlers(ctx),
    ...controlHandlers(ctx),
    ...transferHandlers(ctx),
    ...settingsHandlers(ctx),
    ...providerTestHandlers(ctx),
    ...taskViewHandlers(ctx),
    ...sourcesHandlers(ctx),
    ...searchUsageHandlers(ctx),
    ...integrationHandlers(ctx),
  };
  const stopUpkeep = startSearchUpkeep(store);
  let sourceWatcher: ReturnType<typeof startSourceWatcher>;
  let sourcesReady: Promise<void> = Promise.resolve();
  if (options.watchSources) {
    try {
      sourceWatcher = startSourceWatcher(ctx);
      sourcesReady = sourceWatcher?.ready ?? Promise.resolve();
    } catch (err) {
      sourcesReady = Promise.reject(err instanceof Error ? err : new Error(String(err)));
      sourcesReady.catch(() => undefined);
    }
  }
  let closed = false;
  return {
    handlers,
    root: store.root,
    invoke: (name, raw) => invokeOperation(handlers, name, raw, options.onUnexpectedError),
    subscribe: (listener) => events.subscribe(listener),
    sourcesReady,
    close: async (graceMs) => {
      if (closed) return;
      closed = true;
      stopWatching();
      stopUpkeep();
      await sourceWatcher?.close();
      await supervisor.shutdown(graceMs);
      store.close();
    },
  };
}
