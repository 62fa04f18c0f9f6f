import fs from 'node:fs';
import { watch, type FSWatcher } from 'chokidar';
import type { SourceSync } from './source-sync';
import type { SyncFileResult } from './sync-file';

export interface SourceWatcherOptions {
  /** A file was synced (with messages, tasks touched or an error). */
  onSynced(result: SyncFileResult): void;
  /** A full pass (new folders, missed events) this often; default 30 s. */
  rescanMs?: number;
  /** Events of one file closer than this after its last sync started are one more sync; default 25 ms. */
  debounceMs?: number;
}

export interface SourceWatcher {
  /** The first full pass is done and the watcher is listening. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Follows the sources of a SourceSync live: one full pass at start, then chokidar events
 * (or polling, `sources.poll`, for network mounts where events do not arrive) trigger a
 * sync of the file that changed, and a slow rescan catches folders created later and any
 * event lost. Nothing here reads a session: SourceSync does, from where it stopped.
 */
export function watchSources(sync: SourceSync, options: SourceWatcherOptions): SourceWatcher {
  const debounceMs = options.debounceMs ?? 25;
  const timers = new Map<string, NodeJS.Timeout>();
  let closed = false;
  let watcher: FSWatcher | undefined;
  let watcherReady: Promise<void> | undefined;
  const watched = new Set<string>();

  /** Files whose last reply waits for them to be still: synced again once they are. */
  const settle = new Map<string, NodeJS.Timeout>();
  const report = (result: SyncFileResult): void => {
    if (closed) return;
    clearTimeout(settle.get(result.path));
    settle.delete(result.path);
    if (result.held) {
      const timer = setTimeout(() => {
        settle.delete(result.path);
        schedule(result.path);
      }, sync.config.quietMs + 100);
      timer.unref();
      settle.set(result.path, timer);
    }
    if (result.status === 'error' || result.uuids.length > 0 || result.notice !== undefined)
      options.onSynced(result);
  };

  /** Files synced less than debounceMs ago (their next event waits for the debounce). */
  const recent = new Set<string>();
  /** Files being synced, and whether an event arrived meanwhile (one more sync then). */
  const running = new Map<string, boolean>();

  const run = (file: string): void => {
    const source = sync.sourceOf(file);
    if (!source || closed) return;
    running.set(file, false);
    sync
      .syncPath(source, file)
      .then(report, () => undefined)
      .finally(() => {
        const again = running.get(file) === true;
        running.delete(file);
        if (again) schedule(file);
      });
  };

  // The first event of a quiet file syncs at once (the live delay is what people see);
  // events during a sync, or right after one, are gathered into one more sync. An event file
  // of an events folder stands for its folder.
  const schedule = (changed: string): void => {
    const file = sync.unitOf(changed)?.path;
    if (closed || file === undefined) return;
    if (running.has(file)) {
      running.set(file, true);
      return;
    }
    const pending = timers.get(file);
    if (pending === undefined && !recent.has(file)) {
      recent.add(file);
      setTimeout(() => recent.delete(file), debounceMs).unref();
      run(file);
      return;
    }
    clearTimeout(pending);
    timers.set(
      file,
      setTimeout(() => {
        timers.delete(file);
        run(file);
      }, debounceMs),
    );
  };

  const folders = (): string[] =>
    sync.enabled
      .flatMap((s) => s.folders)
      .filter((f) => {
        try {
          return fs.statSync(f).isDirectory();
        } catch {
          return false;
        }
      });

  const addFolders = (): void => {
    const fresh = folders().filter((f) => !watched.has(f));
    if (fresh.length === 0) return;
    for (const f of fresh) watched.add(f);
    if (!watcher) {
      watcher = watch(fresh, {
        ignoreInitial: true,
        persistent: true,
        usePolling: sync.config.poll,
        interval: sync.config.pollIntervalMs,
        depth: Math.max(...sync.enabled.map((s) => s.kind.depth)),
      });
      const w = watcher;
      watcherReady = new Promise((resolve) => w.once('ready', () => resolve()));
      w.on('add', schedule)
        .on('change', schedule)
        .on('error', () => undefined);
    } else watcher.add(fresh);
  };

  const pass = async (): Promise<void> => {
    addFolders();
    for (const result of await sync.syncAll()) report(result);
  };

  const ready = pass().catch(() => undefined);
  const rescan = setInterval(() => {
    void pass().catch(() => undefined);
  }, options.rescanMs ?? 30_000);
  rescan.unref();

  return {
    // chokidar says 'ready' once its initial scan of the folders is done.
    ready: ready.then(() => watcherReady),
    close: async () => {
      closed = true;
      clearInterval(rescan);
      for (const t of [...timers.values(), ...settle.values()]) clearTimeout(t);
      timers.clear();
      settle.clear();
      await watcher?.close();
    },
  };
}
