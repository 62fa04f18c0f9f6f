import fs from 'node:fs';
import path from 'node:path';
import type { TaskKey, TaskRow, TaskStatus } from '../../shared/task-types';
import type { Db } from '../db/open-database';
import type { FinalStats, NewTaskRow, TaskIndex, TaskQuery } from '../db/task-index';
import { TaskRepository } from '../db/task-repository';
import { PgTaskRepository } from '../db/pg-task-repository';
import { openSourcesDb } from '../db/sources-db';
import { INDEX_URL_ENV, assertIndexUrl, hostName, openTaskIndex } from '../db/open-task-index';
import {
  DATABASE_FILE,
  STATUS_FOLDERS,
  stagingDir,
  assertTaskUuid,
  statusFolder,
  taskDir,
} from './contexts-layout';
import { buildMetadata, writeMetadata, writeNewMetadata } from './task-metadata';
import { TaskContextManager, type FinalSummarizer, type TaskHost } from './task-context-manager';
import { recoverTaskFiles, reconcile, type RecoveryReport } from './recovery';
import { folderIdentity } from './folder-identity';
import { joinFleetFolder } from './fleet-folder';
import { basicFinalSummary } from './basic-final-summary';
import { TaskReader } from './task-reader';
import { StagedHistoryTask } from './staged-history-task';
import { syncCurrent } from './current-sync';
import { CwbError, notFound } from '../errors';
import { isoTimestamp } from '../iso-timestamp';

export interface ContextStoreOptions {
  /** fsync every JSONL append (config storage.durability = 'fsync'). */
  fsync?: boolean;
  /**
   * Reconcile tasks.db with the folders and mark dead running tasks as interrupted, and go on
   * with an unfinished search index backfill for a moment (default true).
   */
  recover?: boolean;
  summarizer?: FinalSummarizer;
  /** A PostgreSQL task index (postgres://…); default $CWB_INDEX_URL, else tasks.db. */
  index?: string;
  /** This host's name in a fleet (default $CWB_HOST, else the OS host name). */
  host?: string;
  /** How long this host's lease lasts without a heartbeat (PostgreSQL index only). */
  leaseMs?: number;
  /**
   * The index and folder moves of a task process whose host does them (host-task-index.ts):
   * the process then never opens tasks.db itself.
   */
  hosted?: TaskIndex & TaskFolders;
}

/**
 * The changes that update a task's row and move or create its folder together, in one
 * write transaction. A store does them itself, or asks its host to (a task process whose
 * host keeps tasks.db: host-task-index.ts), so the two still change in one process.
 */
export interface TaskFolders {
  /** Row (running, owned by `processId`) and folder with metadata.json; returns the folder. */
  createTaskFolder(input: CreateTaskInput & { uuid: string }, processId: number): string;
  /** A paused or failed task's row → running, owned by `processId`; folder → running/. */
  claimTaskFolder(uuid: string, processId: number): string;
  /** Status, final statistics and folder move; returns the new folder. */
  moveTaskFolder(uuid: string, status: EndStatus, extra?: TransitionExtra): string;
}

export type EndStatus = 'paused' | 'completed' | 'failed';
export interface TransitionExtra {
  error_message?: string;
  stats?: FinalStats;
}

/** A host that has not renewed its lease for this long is taken for dead (docs/fleet.md). */
export const DEFAULT_LEASE_MS = 60_000;

export interface CreateTaskInput {
  uuid?: string;
  key?: Partial<TaskKey>;
  title?: string | null;
  prompt?: string | null;
  workdir?: string | null;
  parent_uuid?: string | null;
  llm_provider?: string | null;
  model?: string | null;
  context_length?: number | null;
  compression_threshold?: number | null;
  metadata?: unknown;
  source?: Record<string, unknown>;
}

export const EMPTY_KEY: TaskKey = {
  task_source: '',
  owner: '',
  repo: '',
  task_type: '',
  task_id: '',
  user: '',
};

/**
 * The contexts root: tasks.db plus running/, paused/ and completed/{uuid}/ (DESIGN.md §4).
 * Every status change updates the row and moves the folder inside one IMMEDIATE
 * transaction, so no other writer sees the two disagree (readers take no lock: TaskReader
 * finds a folder that moved under it).
 */
export class ContextStore implements TaskHost {
  readonly repo: TaskIndex;
  readonly recovery: RecoveryReport | undefined;
  /** This host's name: rows it writes carry it (hostname, and the fleet index's host). */
  readonly host: string;
  /** This contexts folder's id (folder-identity.ts), on a fleet index only. */
  readonly folderId: string | undefined;
  /** Tasks of dead hosts this store marked interrupted when it opened (fleet index only). */
  readonly interruptedElsewhere: { uuid: string; host: string }[] = [];
  private heartbeat: NodeJS.Timeout | undefined;
  private ownSourcesDb: Db | undefined;
  private readonly folders: TaskFolders;
  /** fsync every JSONL append (storage.durability). */
  readonly fsync: boolean;
  private readonly summarizer: FinalSummarizer;

  private constructor(
    readonly root: string,
    options: ContextStoreOptions,
  ) {
    for (const folder of STATUS_FOLDERS) fs.mkdirSync(path.join(root, folder), { recursive: true });
    this.host = options.host ?? hostName();
    const url = options.hosted
      ? undefined
      : (options.index ?? (process.env[INDEX_URL_ENV] || undefined));
    // A fleet index: the folder's own id, made the first time (rows carry it: issue 29).
    if (url) assertIndexUrl(url);
    this.folderId = url ? folderIdentity(root, this.host).id : undefined;
    this.repo =
      options.hosted ??
      openTaskIndex(root, {
        url,
        host: this.host,
        databaseFile: DATABASE_FILE,
        ...(this.folderId && { folder: { id: this.folderId, root } }),
        // Upkeep, like recovery, is the hosts' (a sync thread must not close the search
        // index's pending range its sync left open: task-search.ts withSearchIndexLater).
        searchBackfill: options.recover !== false,
      });
    this.folders = options.hosted ?? this;
    this.fsync = options.fsync ?? false;
    this.summarizer = options.summarizer ?? basicFinalSummary;
    try {
      if (this.repo instanceof PgTaskRepository) this.joinFleet(this.repo, options);
      this.recovery = options.recover === false ? undefined : reconcile(this);
    } catch (err) {
      this.close();
      throw err;
    }
  }

  /** tasks.db's connection; only the SQLite index has one. */
  get db(): Db {
    if (this.repo instanceof TaskRepository) return this.repo.db;
    throw new CwbError(
      'usage',
      `this needs tasks.db, but the task index is PostgreSQL (${this.repo.location})`,
    );
  }

  /**
   * Where the sources' sync state lives (docs/sources.md): tasks.db, committed with the
   * rows; on a fleet index sources.db in this folder, as it is about this machine's files.
   */
  get sourcesDb(): Db {
    if (this.repo instanceof TaskRepository) return this.repo.db;
    this.ownSourcesDb ??= openSourcesDb(this.root);
    return this.ownSourcesDb;
  }

  /**
   * A fleet index: join it as this folder (a copied folder is refused; fleet-folder.ts),
   * renew the folder's lease now and while the store is open, and mark the running tasks
   * of folders whose lease ran out as interrupted. The timer does not keep a process alive.
   */
  private joinFleet(index: PgTaskRepository, options: ContextStoreOptions): void {
    const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    joinFleetFolder(index, this.root, leaseMs);
    this.interruptedElsewhere.push(...index.interruptExpiredHosts());
    this.heartbeat = setInterval(
      () => {
        try {
          index.heartbeat(this.root, leaseMs);
          index.interruptExpiredHosts();
        } catch {
          // The database is away: the next beat tries again; writes report the error.
        }
      },
      Math.max(1000, Math.floor(leaseMs / 3)),
    );
    this.heartbeat.unref();
  }

  static open(root: string, options: ContextStoreOptions = {}): ContextStore {
    try {
      fs.mkdirSync(root, { recursive: true });
    } catch (err) {
      throw new CwbError(
        'io',
        `cannot create the contexts folder ${root}: ${(err as Error).message}`,
      );
    }
    return new ContextStore(root, options);
  }

  /** Creates a task: row (running) and folder with metadata.json, together (seed 000 §4.1). */
  /**
   * `batched`: its lines are written together, at the latest when it is closed (an import,
   * which writes a whole transcript before anyone reads it); a task process writes each line.
   */
  createTask(input: CreateTaskInput = {}, options: { batched?: boolean } = {}): TaskContextManager {
    // node:crypto only when a uuid is made here: a task process gets its own from its host
    // and never loads it (~1.5 MiB, issue #17).
    const uuid =
      input.uuid === undefined
        ? process.getBuiltinModule('node:crypto').randomUUID()
        : assertTaskUuid(input.uuid);
    const dir = this.folders.createTaskFolder({ ...input, uuid }, process.pid);
    return this.manager(uuid, dir, options);
  }

  /** TaskFolders: the row and folder of a new task, owned by process `processId`. */
  createTaskFolder(input: CreateTaskInput & { uuid: string }, processId: number): string {
    const uuid = assertTaskUuid(input.uuid);
    const key: TaskKey = { ...EMPTY_KEY, ...input.key };
    const dir = taskDir(this.root, 'running', uuid);
    const createdAt = isoTimestamp();
    this.repo.write(() => {
      if (this.repo.get(uuid))
        throw new CwbError('conflict', `a task with id ${uuid} exists already`);
      this.repo.insert(this.newTaskRow(input, uuid, key, createdAt, processId));
      fs.mkdirSync(dir);
      writeMetadata(
        dir,
        buildMetadata({
          ...input,
          uuid,
          key,
          created_at: createdAt,
          process_id: processId,
          hostname: this.host,
        }),
      );
    });
    return dir;
  }

  /**
   * A task that is history from its start: another agent's session read by the sources'
   * sync (src/core/sources), its row and folder made completed at once (stageHistoryTask,
   * published at once). Tests and tools that make one task; the sync stages its tasks and
   * publishes them with its commit.
   */
  createHistoryTask(input: CreateTaskInput & { uuid: string }): TaskContextManager {
    const staged = this.stageHistoryTask(input);
    try {
      staged.publish();
    } catch (err) {
      staged.discard();
      throw err;
    }
    return this.openStaged(staged.uuid, staged.dir);
  }

  /**
   * A history task's folder made and its metadata.json written under a staging name, and the
   * row it will have (completed, as a task made running and then completed: started and
   * completed now, no process); see StagedHistoryTask. Its metadata.json is fsynced only with
   * durability 'fsync', like the lines the sync appends (writeNewMetadata): with the default,
   * an fsync per task was the largest single cost of a first sync (docs/benchmarks.md §14),
   * and all of the task can be read again from the session.
   */
  stageHistoryTask(input: CreateTaskInput & { uuid: string }): StagedHistoryTask {
    const uuid = assertTaskUuid(input.uuid);
    const key: TaskKey = { ...EMPTY_KEY, ...input.key };
    const staging = stagingDir(this.root, 'completed', uuid);
    const createdAt = isoTimestamp();
    // One this process left (a sync of the same file that failed and could not remove it):
    // a file's syncs take turns in a process, so nothing else writes there.
    fs.rmSync(staging, { recursive: true, force: true });
    fs.mkdirSync(staging);
    try {
      const metadata = buildMetadata({
        ...input,
        uuid,
        key,
        created_at: createdAt,
        process_id: process.pid,
        hostname: this.host,
      });
      if (this.fsync) writeMetadata(staging, metadata);
      else writeNewMetadata(staging, metadata);
    } catch (err) {
      fs.rmSync(staging, { recursive: true, force: true });
      throw err;
    }
    const row: NewTaskRow = {
      ...this.newTaskRow(input, uuid, key, createdAt, process.pid),
      status: 'completed',
      started_at: createdAt,
      completed_at: createdAt,
      process_id: null,
      hostname: null,
    };
    return new StagedHistoryTask(this.repo, row, staging, taskDir(this.root, 'completed', uuid));
  }

  /**
   * A history task opened for the sync that writes it, in `dir` (its staging folder before it
   * is published). Only that sync writes to it, and it commits after closing it: its lines
   * are written together, its summaries, tools and planning logs made only when it first
   * writes one (a new folder needs none of the repairs a folder another process wrote may).
   */
  openStaged(uuid: string, dir: string): TaskContextManager {
    return this.manager(uuid, dir, { lazyRecords: true, batched: true });
  }

  /** The tasks.db row of a new task, owned by process `processId` of this host. */
  private newTaskRow(
    input: CreateTaskInput,
    uuid: string,
    key: TaskKey,
    createdAt: string,
    processId: number,
  ): NewTaskRow {
    return {
      uuid,
      key,
      title: input.title ?? null,
      prompt: input.prompt ?? null,
      workdir: input.workdir ?? null,
      parent_uuid: input.parent_uuid ?? null,
      llm_provider: input.llm_provider ?? null,
      model: input.model ?? null,
      context_length: input.context_length ?? null,
      process_id: processId,
      hostname: this.host,
      metadata: input.metadata,
      created_at: createdAt,
    };
  }

  /** Opens a running task for writing, in the process that drives it. */
  openTask(uuid: string): TaskContextManager {
    const row = this.requireTask(uuid);
    this.assertOwnTask(row);
    if (row.status !== 'running') {
      throw new CwbError(
        'conflict',
        `task ${uuid} is ${row.status}; resume it before writing to it`,
      );
    }
    const dir = this.taskPath(row);
    this.prepareForWriting(dir);
    this.repo.setStatus(uuid, 'running', { process_id: process.pid, hostname: this.host });
    return this.manager(uuid, dir);
  }

  /** paused/ (or a failed task's folder) → running/, owned by this process (seed 001 §3.1 is_resumed). */
  resumeTask(uuid: string): TaskContextManager {
    const dir = this.folders.claimTaskFolder(uuid, process.pid);
    this.prepareForWriting(dir);
    return this.manager(uuid, dir);
  }

  /** TaskFolders: a paused or failed task → running/, owned by process `processId`. */
  claimTaskFolder(uuid: string, processId: number): string {
    return this.moveInTransaction(() => {
      const row = this.requireTask(uuid);
      this.assertOwnTask(row);
      if (row.status === 'running')
        throw new CwbError('conflict', `task ${uuid} is already running`);
      if (row.status === 'completed')
        throw new CwbError('conflict', `task ${uuid} has completed; it cannot be resumed`);
      // Row first, folder second: if the move fails the transaction rolls the row back.
      this.repo.setStatus(uuid, 'running', { process_id: processId, hostname: this.host });
      return { row, status: 'running' };
    });
  }

  /**
   * Opens a task that no process is running (paused, completed, failed, imported) for
   * maintenance that does not change its status: compaction, undo, rewind. A running task
   * is compacted by its own process instead (ask it through `requestControl`). `batched`:
   * lines written together, at the latest at close (TaskContextManager).
   */
  openForMaintenance(uuid: string, options: { batched?: boolean } = {}): TaskContextManager {
    const row = this.requireTask(uuid);
    this.assertOwnTask(row);
    if (row.status === 'running') {
      throw new CwbError(
        'conflict',
        `task ${uuid} is running; its own process compacts it (request it instead)`,
      );
    }
    const dir = this.taskPath(row);
    this.prepareForWriting(dir);
    return this.manager(uuid, dir, options);
  }

  /** A read-only view of any task, safe while another process writes to it. */
  readTask(uuid: string): TaskReader {
    const row = this.requireTask(uuid);
    return new TaskReader(row, this.taskPath(row));
  }

  requireTask(uuid: string): TaskRow {
    const row = this.repo.get(assertTaskUuid(uuid));
    if (!row) throw notFound(`no task with id ${uuid} in ${this.root}`);
    return row;
  }

  taskPath(row: Pick<TaskRow, 'uuid' | 'status'>): string {
    return taskDir(this.rootOf(row), statusFolder(row.status), row.uuid);
  }

  /**
   * The contexts folder holding a task: this host's, or for another host's task in a
   * fleet index, that host's folder as it recorded it (reachable when it is on storage
   * both mount at the same path). A folder that is not there names the host holding it.
   */
  private rootOf(row: Pick<TaskRow, 'uuid' | 'status'>): string {
    const { host: owner, folder } = holderOf(row);
    if (!owner || !(this.repo instanceof PgTaskRepository)) return this.root;
    if (folder ? folder === this.folderId : owner === this.host) return this.root;
    const root = folder
      ? this.repo.registeredFolder(folder)?.contexts_root
      : this.repo.hosts().find((h) => h.name === owner)?.contexts_root;
    const dir = root ? taskDir(root, statusFolder(row.status), row.uuid) : undefined;
    if (!root || !dir || !fs.existsSync(dir)) {
      throw new CwbError(
        'not_found',
        `task ${row.uuid} is held by host ${owner}${root ? ` in ${root}` : ''}, which this host (${this.host}) cannot reach; open it on ${owner}`,
      );
    }
    return root;
  }

  /** Only the host and contexts folder that hold a task write it (docs/fleet.md). */
  private assertOwnTask(row: TaskRow): void {
    const { host: owner, folder } = holderOf(row);
    if (owner && owner !== this.host) {
      throw new CwbError(
        'conflict',
        `task ${row.uuid} belongs to host ${owner}; run, resume or change it there (this host is ${this.host})`,
      );
    }
    if (folder && this.folderId && folder !== this.folderId) {
      const root =
        this.repo instanceof PgTaskRepository
          ? this.repo.registeredFolder(folder)?.contexts_root
          : undefined;
      throw new CwbError(
        'conflict',
        `task ${row.uuid} belongs to another contexts folder of this host (${root ?? folder}); open that folder to run, resume or change it (this one is ${this.root})`,
      );
    }
  }

  listTasks(query: TaskQuery = {}): { rows: TaskRow[]; total: number } {
    return this.repo.query(query);
  }

  /** TaskHost: status, statistics and folder move in one transaction; returns the new folder. */
  transition(uuid: string, status: EndStatus, extra: TransitionExtra = {}): string {
    return this.folders.moveTaskFolder(uuid, status, extra);
  }

  /** TaskFolders: what `transition` does, in this process. */
  moveTaskFolder(uuid: string, status: EndStatus, extra: TransitionExtra = {}): string {
    return this.moveInTransaction(() => {
      const row = this.requireTask(uuid);
      if (extra.stats) this.repo.setFinalStats(uuid, extra.stats);
      this.repo.setStatus(
        uuid,
        status,
        extra.error_message !== undefined ? { error_message: extra.error_message } : {},
      );
      return { row, status };
    });
  }

  /**
   * One write transaction that updates a row and then moves its folder; returns the new
   * folder. If the transaction fails after the rename — its COMMIT can (SQLITE_FULL on a
   * full disk) — the row keeps its old status, so the folder is renamed back before the
   * error goes on; otherwise the next status change would find its folder gone.
   */
  private moveInTransaction(
    update: () => { row: Pick<TaskRow, 'uuid' | 'status'>; status: TaskStatus },
  ): string {
    let renamed: { from: string; to: string } | undefined;
    try {
      return this.repo.write(() => {
        const { row, status } = update();
        const from = this.taskPath(row);
        const to = this.move(row, status);
        if (to !== from) renamed = { from, to };
        return to;
      });
    } catch (error) {
      if (renamed) moveBack(renamed.from, renamed.to);
      throw error;
    }
  }

  close(): void {
    clearInterval(this.heartbeat);
    this.ownSourcesDb?.close();
    this.ownSourcesDb = undefined;
    this.repo.close();
  }

  /** Moves a task folder to the one its new status lives in. Call inside a write transaction. */
  move(row: Pick<TaskRow, 'uuid' | 'status'>, status: TaskStatus): string {
    const from = this.taskPath(row);
    const to = taskDir(this.root, statusFolder(status), row.uuid);
    if (from !== to) {
      if (fs.existsSync(to))
        throw new CwbError('conflict', `cannot move task ${row.uuid}: ${to} exists already`);
      fs.renameSync(from, to);
    }
    return to;
  }

  /**
   * What the process that is about to write a task does first: set torn last lines aside,
   * remove temp files of dead writers, and bring current.jsonl up to date with the history
   * (a kill may have left it behind). Recovery on open only does the first, so opening the
   * store never rewrites a task's context.
   */
  private prepareForWriting(dir: string): void {
    recoverTaskFiles(dir);
    syncCurrent(dir, { fsync: this.fsync });
  }

  private manager(
    uuid: string,
    dir: string,
    options: { lazyRecords?: boolean; batched?: boolean } = {},
  ): TaskContextManager {
    return new TaskContextManager(this, uuid, dir, {
      fsync: this.fsync,
      summarizer: this.summarizer,
      ...options,
    });
  }
}

/**
 * Undoes a folder rename whose transaction did not commit. If even that fails, recovery
 * moves the folder back on the next open (it always follows the row).
 */
function moveBack(from: string, to: string): void {
  try {
    if (!fs.existsSync(from)) fs.renameSync(to, from);
  } catch {
    // Left for recovery (reconcile), which runs under the write lock.
  }
}

/** The host and contexts folder holding a task, as a fleet index records them. */
function holderOf(row: Pick<TaskRow, 'uuid'>): { host?: string | null; folder?: string | null } {
  const r = row as { host?: string | null; folder_id?: string | null };
  return { host: r.host, folder: r.folder_id };
}
