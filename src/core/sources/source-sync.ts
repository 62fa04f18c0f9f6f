import fs from 'node:fs';
import path from 'node:path';
import type { SourcesStatus, SourceStatus, SyncSourcesResult } from '../../shared/api/sources-api';
import type { ContextStore } from '../store/context-store';
import { discoverFiles, isInside, relative } from './discover';
import type { SourcesConfig, SourceSettings } from './sources-config';
import { syncFile, type SyncFileResult } from './sync-file';
import { SyncStateRepository } from './sync-state';
import { TaskRepository } from '../db/task-repository';
import { withSearchIndexLater } from '../db/task-search';
import { extraThreads, PARALLEL_MIN_BYTES, runLanes, type Lane } from './sync-threads';

const MAX_ERRORS_SHOWN = 20;
/** How long `cwb sources sync` (and Sync now) waits for files another process is syncing. */
export const WAIT_BUSY_MS = 30_000;

/**
 * Syncs of one file queued one after another in this process, whichever SourceSync asks
 * (the lease in source_files keeps other processes apart, not two calls of this one).
 */
const queues = new Map<string, Promise<SyncFileResult>>();

/**
 * Syncs the sources of one config into one store: a whole pass (`syncAll`) or one file
 * (`syncPath`, for the watcher).
 */
export class SourceSync {
  /** Files the last syncAll synced on other threads than this one (tests, the bench). */
  lastOnThreads = 0;
  /**
   * Tests: threads besides this one (default: extraThreads()), the bytes that need them, and
   * whether this thread waits for them to start before it takes lanes of its own.
   */
  threads: number | undefined;
  minParallelBytes: number | undefined;
  threadsFirst = false;

  constructor(
    readonly store: ContextStore,
    readonly config: SourcesConfig,
  ) {}

  get enabled(): SourceSettings[] {
    return this.config.sources.filter((s) => s.enabled);
  }

  /** The source a file belongs to, or undefined when no enabled source claims it. */
  sourceOf(file: string): SourceSettings | undefined {
    return this.unitOf(file)?.source;
  }

  /**
   * What a changed file means to sync: the file itself, or the events folder it is an event
   * of (a kind that keeps a session as one file per event); undefined when no source claims it.
   */
  unitOf(file: string): { source: SourceSettings; path: string } | undefined {
    for (const source of this.enabled)
      for (const folder of source.folders) {
        if (!isInside(folder, file)) continue;
        const rel = relative(folder, file);
        if (source.kind.matches(rel)) return { source, path: file };
        // A database's write-ahead log or journal changed: the database is synced.
        const db =
          source.kind.reader.mode === 'store' ? /^(.*)-(wal|journal)$/.exec(rel)?.[1] : undefined;
        if (db !== undefined && source.kind.matches(db))
          return { source, path: path.join(folder, ...db.split('/')) };
        const unit = source.kind.events?.unitOf(rel);
        if (unit !== undefined) return { source, path: path.join(folder, ...unit.split('/')) };
        // An events folder itself (a sync retried by its path).
        if (source.kind.events?.unitOf(`${rel}/0.json`) === rel) return { source, path: file };
      }
    return undefined;
  }

  /**
   * `waitBusyMs`: files another live process is syncing are tried again until it is done
   * (a lease is held for one sync only) or this long has passed; those still busy then are
   * returned as `busy`. The watcher passes 0: the holder's own watcher reads them.
   */
  async syncAll(only?: string, options: { waitBusyMs?: number } = {}): Promise<SyncFileResult[]> {
    const sources = this.enabled.filter((s) => only === undefined || s.id === only);
    const units: SyncUnit[] = [];
    for (const source of sources)
      for (const folder of source.folders)
        for (const file of await discoverFiles(source.kind, folder))
          units.push({ source, folder, file, kind: source.kind.id });
    const results = await this.syncUnits(units);
    // Found through the working directories of the tasks known: after the others' sync.
    for (const source of sources)
      for (const file of this.inWorkdirs(source)) results.push(await this.syncPath(source, file));
    const deadline = Date.now() + (options.waitBusyMs ?? 0);
    let delay = 20;
    while (results.some((r) => r.status === 'busy') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(delay, deadline - Date.now())));
      delay = Math.min(delay * 2, 500);
      for (const [i, r] of results.entries()) {
        if (r.status !== 'busy') continue;
        const source = this.sourceOf(r.path);
        if (source) results[i] = await this.syncPath(source, r.path);
      }
    }
    return results;
  }

  /** A kind's stores inside the working directories of the tasks known (Crush's), not under a folder of it. */
  private inWorkdirs(source: SourceSettings): string[] {
    const rel = source.kind.inWorkdirs;
    if (rel === undefined) return [];
    let workdirs: string[];
    try {
      workdirs = (
        this.store.db
          .prepare("SELECT DISTINCT workdir FROM tasks WHERE workdir IS NOT NULL AND workdir != ''")
          .all() as { workdir: string }[]
      ).map((r) => r.workdir);
    } catch {
      return []; // a task index without tasks.db: only the configured folders
    }
    return workdirs
      .map((w) => path.join(w, ...rel.split('/')))
      .filter((f) => !source.folders.some((folder) => isInside(folder, f)) && fs.existsSync(f));
  }

  /**
   * The files' syncs, in their order: on more threads when there is enough to read
   * (sync-threads.ts), else one after another.
   */
  private async syncUnits(units: SyncUnit[]): Promise<SyncFileResult[]> {
    const count = this.threads ?? extraThreads();
    const here = (unit: SyncUnit): Promise<SyncFileResult> => this.syncPath(unit.source, unit.file);
    this.lastOnThreads = 0;
    if (!(this.store.repo instanceof TaskRepository) || units.length < 2)
      return inOrder(units, here);
    const { lanes, hereOnly } = laneUnits(units, this.syncedBefore());
    const bytes = lanes.reduce((n, lane) => n + lane.bytes, 0);
    // Nothing new to read (a poll's pass over unchanged files) needs no thread.
    if (bytes === 0 || bytes < (this.minParallelBytes ?? PARALLEL_MIN_BYTES))
      return inOrder(units, here);
    // Many new tasks: their search entries are made together at the end.
    return withSearchIndexLater(this.store.db, () =>
      count === 0 || lanes.length < 2
        ? inOrder(units, here)
        : this.onLanes(units, lanes, hereOnly, here, count),
    );
  }

  /** The units (in lanes, and here only) on this thread and `count` sync threads (sync-threads.ts). */
  private async onLanes(
    units: SyncUnit[],
    lanes: Lane<SyncUnit>[],
    hereOnly: SyncUnit[],
    here: (unit: SyncUnit) => Promise<SyncFileResult>,
    count: number,
  ): Promise<SyncFileResult[]> {
    const { results, onThreads } = await runLanes({
      lanes,
      hereOnly,
      syncQueued: here,
      syncNow: (unit) => syncFile(this.store, unit.source.kind, unit.file, this.fileOptions),
      track: (file, done) => this.track(file, done),
      threads: count,
      target: {
        root: this.store.root,
        fsync: this.store.fsync,
        host: this.store.host,
        quietMs: this.config.quietMs,
      },
      afterThreadsStart: this.threadsFirst,
    });
    this.lastOnThreads = onThreads;
    return units.map((unit) => results.get(unit)!);
  }

  /** Each file's size and time when it was last synced (what is new since is what to read). */
  private syncedBefore(): Map<string, { size: number; mtimeMs: number }> {
    const rows = new SyncStateRepository(this.store.sourcesDb).list();
    return new Map(rows.map((r) => [r.path, { size: r.size, mtimeMs: r.mtime_ms }]));
  }

  /**
   * The file's sync is part of a lane (another thread may do it): this process's next sync of
   * it waits for the lane. Returns what was queued before.
   */
  private track(file: string, done: Promise<unknown>): Promise<unknown> {
    const previous = queues.get(file) ?? Promise.resolve(undefined);
    const next = previous.catch(() => undefined).then(() => done) as Promise<SyncFileResult>;
    queues.set(file, next);
    void next.finally(() => {
      if (queues.get(file) === next) queues.delete(file);
    });
    return previous;
  }

  private get fileOptions(): { quietMs: number } {
    return { quietMs: this.config.quietMs };
  }

  syncPath(source: SourceSettings, file: string): Promise<SyncFileResult> {
    const previous = queues.get(file) ?? Promise.resolve(undefined);
    const next = previous
      .catch(() => undefined)
      .then(() => syncFile(this.store, source.kind, file, this.fileOptions));
    queues.set(file, next);
    void next.finally(() => {
      if (queues.get(file) === next) queues.delete(file);
    });
    return next;
  }

  status(): SourcesStatus {
    const repo = new SyncStateRepository(this.store.sourcesDb);
    const sources: SourceStatus[] = this.config.sources.map((s) => {
      const rows = repo.list(s.id);
      const errors = rows.filter((r) => r.error !== null);
      const lastSync = rows.reduce<string | null>(
        (max, r) =>
          r.synced_at !== null && (max === null || r.synced_at > max) ? r.synced_at : max,
        null,
      );
      return {
        id: s.id,
        label: s.label,
        enabled: s.enabled,
        configured: s.configured,
        folders: s.folders.map((folder) => ({ path: folder, exists: isDirectory(folder) })),
        sessions: rows.length,
        messages: rows.reduce((n, r) => n + r.messages, 0),
        lastSync,
        errors: errors.slice(0, MAX_ERRORS_SHOWN).map((r) => ({ path: r.path, error: r.error! })),
        errorCount: errors.length,
        notices: rows
          .filter((r) => r.notice !== null)
          .slice(0, MAX_ERRORS_SHOWN)
          .map((r) => ({ path: r.path, notice: r.notice! })),
      };
    });
    return {
      configFile: this.config.file,
      watch: this.config.watch,
      poll: this.config.poll,
      sources,
    };
  }
}

export function summarize(results: readonly SyncFileResult[]): SyncSourcesResult {
  return {
    files: results.length,
    synced: results.filter((r) => r.status === 'synced').length,
    messages: results.reduce((n, r) => n + r.messages, 0),
    errors: results
      .filter((r) => r.status === 'error')
      .map((r) => ({ path: r.path, error: r.error ?? 'error' })),
    busy: results.filter((r) => r.status === 'busy').map((r) => r.path),
  };
}

function isDirectory(folder: string): boolean {
  try {
    return fs.statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

/** A session file (or events folder, or store) of a source, found under `folder`. */
interface SyncUnit {
  source: SourceSettings;
  folder: string;
  file: string;
  kind: string;
}

async function inOrder(
  units: SyncUnit[],
  sync: (unit: SyncUnit) => Promise<SyncFileResult>,
): Promise<SyncFileResult[]> {
  const results: SyncFileResult[] = [];
  for (const unit of units) results.push(await sync(unit));
  return results;
}

/**
 * The units in lanes (SourceKind.lane), in their order within each, with the bytes each lane
 * has to read (a file unchanged since its last sync: none); those of a kind that adopts other
 * files' sessions or is a store stay on the sync's own thread (`hereOnly`).
 */
function laneUnits(
  units: SyncUnit[],
  before: ReadonlyMap<string, { size: number; mtimeMs: number }>,
): { lanes: Lane<SyncUnit>[]; hereOnly: SyncUnit[] } {
  const lanes = new Map<string, Lane<SyncUnit>>();
  const hereOnly: SyncUnit[] = [];
  for (const unit of units) {
    const kind = unit.source.kind;
    if (kind.reader.mode === 'store' || kind.earlierCopy || kind.movedFrom || kind.inWorkdirs) {
      hereOnly.push(unit);
      continue;
    }
    // Without a lane of its own, a source is one: its folders may hand sessions on (Codex
    // archives a rollout into its second folder).
    const key = kind.lane
      ? `${unit.source.id}\0${unit.folder}\0${kind.lane(relative(unit.folder, unit.file))}`
      : unit.source.id;
    let lane = lanes.get(key);
    if (!lane) lanes.set(key, (lane = { units: [], bytes: 0 }));
    lane.units.push(unit);
    lane.bytes += toRead(unit.file, before.get(unit.file));
  }
  return { lanes: [...lanes.values()], hereOnly };
}

/** What a file has that its last sync did not read: all of it when it changed, else nothing. */
function toRead(file: string, last: { size: number; mtimeMs: number } | undefined): number {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return 0;
  }
  if (last === undefined) return stat.size;
  if (last.size === stat.size && last.mtimeMs === stat.mtimeMs) return 0;
  return stat.size >= last.size ? stat.size - last.size : stat.size;
}
