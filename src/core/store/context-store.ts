import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import type { TaskKey, TaskRow, TaskStatus } from '../../shared/task-types';
import { openDatabase, type Db } from '../db/open-database';
import { TaskRepository, type FinalStats, type TaskQuery } from '../db/task-repository';
import {
  DATABASE_FILE,
  STATUS_FOLDERS,
  assertTaskUuid,
  statusFolder,
  taskDir,
} from './contexts-layout';
import { buildMetadata, writeMetadata } from './task-metadata';
import { TaskContextManager, type FinalSummarizer, type TaskHost } from './task-context-manager';
import { recoverTaskFiles, reconcile, type RecoveryReport } from './recovery';
import { basicFinalSummary } from './basic-final-summary';
import { TaskReader } from './task-reader';
import { syncCurrent } from './current-sync';
import { CwbError, notFound } from '../errors';

export interface ContextStoreOptions {
  /** fsync every JSONL append (config storage.durability = 'fsync'). */
  fsync?: boolean;
  /** Reconcile tasks.db with the folders and mark dead running tasks as interrupted (default true). */
  recover?: boolean;
  summarizer?: FinalSummarizer;
}

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
  readonly db: Db;
  readonly repo: TaskRepository;
  readonly recovery: RecoveryReport | undefined;
  private readonly fsync: boolean;
  private readonly summarizer: FinalSummarizer;

  private constructor(
    readonly root: string,
    options: ContextStoreOptions,
  ) {
    for (const folder of STATUS_FOLDERS) fs.mkdirSync(path.join(root, folder), { recursive: true });
    this.db = openDatabase(path.join(root, DATABASE_FILE));
    this.repo = new TaskRepository(this.db);
    this.fsync = options.fsync ?? false;
    this.summarizer = options.summarizer ?? basicFinalSummary;
    this.recovery = options.recover === false ? undefined : reconcile(this);
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
  createTask(input: CreateTaskInput = {}): TaskContextManager {
    const uuid = input.uuid === undefined ? crypto.randomUUID() : assertTaskUuid(input.uuid);
    const key: TaskKey = { ...EMPTY_KEY, ...input.key };
    const dir = taskDir(this.root, 'running', uuid);
    const createdAt = new Date().toISOString();
    this.repo.write(() => {
      if (this.repo.get(uuid))
        throw new CwbError('conflict', `a task with id ${uuid} exists already`);
      this.repo.insert({
        uuid,
        key,
        title: input.title ?? null,
        prompt: input.prompt ?? null,
        workdir: input.workdir ?? null,
        parent_uuid: input.parent_uuid ?? null,
        llm_provider: input.llm_provider ?? null,
        model: input.model ?? null,
        context_length: input.context_length ?? null,
        process_id: process.pid,
        hostname: os.hostname(),
        metadata: input.metadata,
        created_at: createdAt,
      });
      fs.mkdirSync(dir);
      writeMetadata(
        dir,
        buildMetadata({
          ...input,
          uuid,
          key,
          created_at: createdAt,
          process_id: process.pid,
          hostname: os.hostname(),
        }),
      );
    });
    return this.manager(uuid, dir);
  }

  /** Opens a running task for writing, in the process that drives it. */
  openTask(uuid: string): TaskContextManager {
    const row = this.requireTask(uuid);
    if (row.status !== 'running') {
      throw new CwbError(
        'conflict',
        `task ${uuid} is ${row.status}; resume it before writing to it`,
      );
    }
    const dir = this.taskPath(row);
    this.prepareForWriting(dir);
    this.repo.setStatus(uuid, 'running', { process_id: process.pid, hostname: os.hostname() });
    return this.manager(uuid, dir);
  }

  /** paused/ (or a failed task's folder) → running/, owned by this process (seed 001 §3.1 is_resumed). */
  resumeTask(uuid: string): TaskContextManager {
    const dir = this.moveInTransaction(() => {
      const row = this.requireTask(uuid);
      if (row.status === 'running')
        throw new CwbError('conflict', `task ${uuid} is already running`);
      if (row.status === 'completed')
        throw new CwbError('conflict', `task ${uuid} has completed; it cannot be resumed`);
      // Row first, folder second: if the move fails the transaction rolls the row back.
      this.repo.setStatus(uuid, 'running', { process_id: process.pid, hostname: os.hostname() });
      return { row, status: 'running' };
    });
    this.prepareForWriting(dir);
    return this.manager(uuid, dir);
  }

  /**
   * Opens a task that no process is running (paused, completed, failed, imported) for
   * maintenance that does not change its status: compaction, undo, rewind. A running task
   * is compacted by its own process instead (ask it through `requestControl`).
   */
  openForMaintenance(uuid: string): TaskContextManager {
    const row = this.requireTask(uuid);
    if (row.status === 'running') {
      throw new CwbError(
        'conflict',
        `task ${uuid} is running; its own process compacts it (request it instead)`,
      );
    }
    const dir = this.taskPath(row);
    this.prepareForWriting(dir);
    return this.manager(uuid, dir);
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
    return taskDir(this.root, statusFolder(row.status), row.uuid);
  }

  listTasks(query: TaskQuery = {}): { rows: TaskRow[]; total: number } {
    return this.repo.query(query);
  }

  /** TaskHost: status, statistics and folder move in one transaction; returns the new folder. */
  transition(
    uuid: string,
    status: 'paused' | 'completed' | 'failed',
    extra: { error_message?: string; stats?: FinalStats } = {},
  ): string {
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
    this.db.close();
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

  private manager(uuid: string, dir: string): TaskContextManager {
    return new TaskContextManager(this, uuid, dir, {
      fsync: this.fsync,
      summarizer: this.summarizer,
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
