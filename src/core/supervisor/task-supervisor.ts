import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import {
  taskSpecSchema,
  workerEventSchema,
  type TaskSpecInput,
  type WorkerEvent,
} from '../../shared/worker-protocol';
import { INDEX_PIPE_FD, type ForkWorker, type WorkerHandle } from './worker-handle';
import { serveTaskIndex } from './task-index-server';
import { INDEX_URL_ENV } from '../db/open-task-index';
import { ContextStore } from '../store/context-store';
import { assertTaskUuid } from '../store/contexts-layout';
import { CwbError } from '../errors';
import { configHandover } from './config-env';
import { taskProcessEnv } from './task-process-flags';

/** How often a host reads the control requests of the tasks whose index it keeps. */
const CONTROL_POLL_MS = 500;

export interface SupervisorOptions {
  fork: ForkWorker;
  contextsRoot: string;
  configFile: string | null;
  /** The host's environment (default process.env): task processes get only its allow-listed part. */
  env?: NodeJS.ProcessEnv;
}

export interface WorkerExit {
  uuid: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last status the worker reported, or 'failed' when it died without one. */
  status: 'completed' | 'paused' | 'failed' | 'running';
}

type StartInput = Omit<TaskSpecInput, 'uuid' | 'contextsRoot' | 'configFile' | 'mode'> & {
  uuid?: string;
};

export interface ResumeOptions {
  maxTurns?: number;
}

interface Running {
  handle: WorkerHandle;
  lastStatus: (WorkerEvent & { type: 'status' }) | undefined;
  exited: Promise<WorkerExit>;
  /** Settles on the process's first event (it has created or opened the task) or its exit. */
  heard: Promise<void>;
}

/**
 * The host side of "one task = one process" (DESIGN.md §3): starts task processes through
 * an injected fork function, relays their events, passes pause/stop/compact requests, and
 * notices a process that dies without finishing — its task is marked failed with the exit
 * code or signal, and every file is kept.
 */
export class TaskSupervisor extends EventEmitter<{ event: [WorkerEvent]; exit: [WorkerExit] }> {
  private readonly running = new Map<string, Running>();
  /** The store that keeps task processes' indexes (serveIndex); closed when none runs. */
  private indexStore: ContextStore | undefined;
  /** Tasks whose index this host keeps, and so whose control requests it reads. */
  private readonly hosted = new Set<string>();
  private controlTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: SupervisorOptions) {
    super();
  }

  /** Queues a new task: its uuid is assigned here (seed 000 §4.6), before the process exists. */
  start(input: StartInput): string {
    const uuid = input.uuid === undefined ? crypto.randomUUID() : assertTaskUuid(input.uuid);
    this.launch(uuid, { ...input, uuid, mode: 'new' });
    return uuid;
  }

  /**
   * Continues a paused or interrupted task in a new process, from its files, with the
   * settings it started with; `maxTurns` replaces its limit on model calls (counted from its
   * first call, so it must exceed the calls made so far to let the task go on).
   */
  resume(uuid: string, options: ResumeOptions = {}): void {
    assertTaskUuid(uuid);
    this.launch(uuid, {
      uuid,
      mode: 'resume',
      ...(options.maxTurns !== undefined && { maxTurns: options.maxTurns }),
    });
  }

  pause(uuid: string): void {
    this.request(uuid, 'pause');
  }

  stop(uuid: string): void {
    this.request(uuid, 'stop');
  }

  compactNow(uuid: string): void {
    this.request(uuid, 'compact');
  }

  isRunning(uuid: string): boolean {
    return this.running.has(uuid);
  }

  /**
   * Resolves once a just-started task can be read (its process has reported on it), when the
   * process ended, or after `timeoutMs`: a view opened on the answer to "start" then finds
   * the task instead of "not found" while a loaded machine starts the process.
   */
  async whenReadable(uuid: string, timeoutMs: number): Promise<void> {
    const heard = this.running.get(uuid)?.heard;
    if (!heard) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([heard, new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
  }

  /** Resolves when the task's process has ended (immediately if none is running here). */
  waitForExit(uuid: string): Promise<WorkerExit | undefined> {
    return this.running.get(uuid)?.exited ?? Promise.resolve(undefined);
  }

  /** Stops every task process (on host shutdown): pause first, then kill what lingers. */
  async shutdown(graceMs = 10_000): Promise<void> {
    const exits = [...this.running.entries()].map(([uuid, r]) => {
      r.handle.send({ type: 'pause' });
      const timer = setTimeout(() => r.handle.kill('SIGKILL'), graceMs);
      return r.exited.finally(() => clearTimeout(timer)).then(() => uuid);
    });
    await Promise.all(exits);
  }

  private launch(uuid: string, spec: Omit<TaskSpecInput, 'contextsRoot' | 'configFile'>): void {
    const full = taskSpecSchema.parse({
      ...spec,
      contextsRoot: this.options.contextsRoot,
      configFile: this.options.configFile,
    });
    if (this.running.has(uuid)) throw new CwbError('conflict', `task ${uuid} is already running`);
    const hostEnv = this.options.env ?? process.env;
    // Read before the process exists: a config.yaml that cannot be read fails the same way there.
    const handover = configHandover(this.options.configFile, hostEnv);
    const handle = this.options.fork({ env: taskProcessEnv(hostEnv) });
    let resolveExit!: (exit: WorkerExit) => void;
    let resolveHeard!: () => void;
    const exited = new Promise<WorkerExit>((r) => (resolveExit = r));
    const entry: Running = {
      handle,
      lastStatus: undefined,
      exited,
      heard: Promise.race([new Promise<void>((r) => (resolveHeard = r)), exited.then(() => {})]),
    };
    this.running.set(uuid, entry);
    handle.onMessage((raw) => {
      const parsed = workerEventSchema.safeParse(raw);
      if (!parsed.success) return; // a malformed message from a worker is ignored, never trusted
      resolveHeard();
      if (parsed.data.type === 'status') entry.lastStatus = parsed.data;
      this.emit('event', parsed.data);
    });
    handle.onExit((code, signal) => {
      this.running.delete(uuid);
      this.hosted.delete(uuid);
      if (this.hosted.size === 0) {
        clearInterval(this.controlTimer);
        this.controlTimer = undefined;
      }
      if (this.running.size === 0) this.closeIndexStore();
      let exit: WorkerExit;
      try {
        exit = this.settle(uuid, entry, code, signal);
      } catch (err) {
        // This runs in the child's exit listener: a throw here would end the host (cwb
        // serve, the app). tasks.db may be full, or the folder already moved: the row is
        // left to recovery, and the exit is reported as failed.
        exit = { uuid, code, signal, status: 'failed' };
        this.emit('event', {
          type: 'error',
          uuid,
          message: `the task process ${howEnded(code, signal)}, and its task could not be marked failed: ${(err as Error).message}`,
        });
      }
      resolveExit(exit);
      this.emit('exit', exit);
    });
    const indexFd = this.serveIndex(uuid, handle, handover.configEnv);
    // The secrets travel here, over the process's own channel, not in its environment.
    handle.send({
      type: 'start',
      spec: full,
      ...handover,
      ...(indexFd !== undefined && { indexFd }),
    });
  }

  /**
   * Keeps the task's index for its process over the handle's pipe, when it has one and the
   * index is tasks.db (a fleet's PostgreSQL index stays the process's own: docs/fleet.md).
   * Returns the descriptor the process finds the pipe at.
   */
  private serveIndex(
    uuid: string,
    handle: WorkerHandle,
    configEnv: Record<string, string>,
  ): number | undefined {
    // The host's own store follows process.env; the process's index follows what it is handed.
    if (!handle.indexPipe || configEnv[INDEX_URL_ENV] || process.env[INDEX_URL_ENV])
      return undefined;
    serveTaskIndex(handle.indexPipe, {
      uuid,
      processId: handle.pid,
      store: () => this.hostStore(),
    });
    this.hosted.add(uuid);
    this.controlTimer ??= setInterval(() => this.forwardControl(), CONTROL_POLL_MS).unref();
    return INDEX_PIPE_FD;
  }

  private hostStore(): ContextStore {
    this.indexStore ??= ContextStore.open(this.options.contextsRoot, { recover: false });
    return this.indexStore;
  }

  /**
   * Requests other processes left in tasks.db (`cwb pause UUID`) for the tasks whose index
   * this host keeps, sent to them as messages: they do not poll tasks.db themselves, which
   * would make them wait on this host twice a second (control-state.ts).
   */
  private forwardControl(): void {
    for (const uuid of this.hosted) {
      try {
        const action = this.hostStore().repo.takeControl(uuid);
        if (action)
          this.running
            .get(uuid)
            ?.handle.send({ type: action === 'compact' ? 'compact-now' : action });
      } catch {
        // A busy or unreadable tasks.db: the next tick tries again.
      }
    }
  }

  /** After a process ends: a task it left "running" is failed with how the process ended. */
  private settle(
    uuid: string,
    entry: Running,
    code: number | null,
    signal: NodeJS.Signals | null,
  ): WorkerExit {
    const reported = entry.lastStatus?.status;
    if (reported && reported !== 'running') return { uuid, code, signal, status: reported };
    const how = howEnded(code, signal);
    const store = ContextStore.open(this.options.contextsRoot, { recover: false });
    try {
      const row = store.repo.get(uuid);
      if (row?.status === 'running') {
        store.transition(uuid, 'failed', { error_message: `task process ${how}` });
        this.emit('event', {
          type: 'status',
          uuid,
          status: 'failed',
          error: `task process ${how}`,
        });
      }
      const final = row && row.status !== 'running' ? row.status : 'failed';
      return { uuid, code, signal, status: final };
    } finally {
      store.close();
    }
  }

  private closeIndexStore(): void {
    const store = this.indexStore;
    this.indexStore = undefined;
    store?.close();
  }

  private request(uuid: string, action: 'pause' | 'stop' | 'compact'): void {
    const r = this.running.get(uuid);
    if (r) {
      r.handle.send({ type: action === 'compact' ? 'compact-now' : action });
      return;
    }
    // Not ours (another host, or detached): ask through tasks.db; the task process polls it.
    const store = ContextStore.open(this.options.contextsRoot, { recover: false });
    try {
      const row = store.requireTask(uuid);
      if (row.status !== 'running')
        throw new CwbError('conflict', `task ${uuid} is ${row.status}, not running`);
      store.repo.requestControl(uuid, action);
    } finally {
      store.close();
    }
  }
}

function howEnded(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `killed by ${signal}` : `exited with code ${code}`;
}
