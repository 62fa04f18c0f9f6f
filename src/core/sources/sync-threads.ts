import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { shareWriteGate } from '../db/write-gate';
import { builtEntry } from '../built-entry';
import type { SyncFileResult } from './sync-file';
import type {
  LaneReply,
  LaneTarget,
  LaneUnit,
  ThreadMessage,
  ThreadRequest,
  ThreadStart,
} from './sync-thread-protocol';

export type { LaneTarget } from './sync-thread-protocol';

/**
 * More threads for a first sync of many files. Parsing, mapping and writing a session are
 * each thread's own work; tasks.db takes their writes one at a time (write-gate.ts). The
 * files are grouped in lanes (sessions that refer to one another: a Claude Code project's
 * sessions and sub-agents; a source of another kind), each lane synced in order by
 * one thread, as a sync on one thread would; lanes go to whichever thread is free, the
 * largest first, the sync's own thread taking its share.
 */

/** Below this many bytes to read, a sync stays on its own thread (starting one costs more). */
export const PARALLEL_MIN_BYTES = 8 * 1024 * 1024;
/** How long a thread waits for the next sync before it ends. */
const IDLE_MS = 30_000;
/** More threads than this gain nothing: tasks.db takes one writer at a time. */
const MAX_THREADS = 3;
/** Threads besides the sync's own: CWB_SYNC_THREADS, else one less than the cores (0: none). */
export const THREADS_ENV = 'CWB_SYNC_THREADS';

export function extraThreads(env: NodeJS.ProcessEnv = process.env): number {
  const set = env[THREADS_ENV];
  if (set !== undefined && /^\d+$/.test(set.trim())) return Math.min(Number(set), MAX_THREADS);
  return Math.max(0, Math.min(os.availableParallelism() - 1, MAX_THREADS));
}

/** A lane: session files synced in order by one thread. */
export interface Lane<T> {
  units: T[];
  bytes: number;
}

/** What runLanes runs, and how. */
export interface LaneRun<T extends LaneUnit> {
  lanes: Lane<T>[];
  /** Units only this thread syncs, first, through `syncQueued`. */
  hereOnly: T[];
  /** A sync through the process's queue of syncs per file (SourceSync.syncPath). */
  syncQueued: (unit: T) => Promise<SyncFileResult>;
  /** A lane unit's sync on this thread, the lane's turn in the queue being already taken. */
  syncNow: (unit: T) => Promise<SyncFileResult>;
  /**
   * Puts a lane's file in the process's queue until its lane is done (whichever thread syncs
   * it); gives what was queued before.
   */
  track: (file: string, done: Promise<unknown>) => Promise<unknown>;
  /** Sync threads besides this one. */
  threads: number;
  target: LaneTarget;
  /** Tests: this thread takes lanes only once each other one has done one. */
  afterThreadsStart?: boolean;
}

/**
 * Runs the lanes on this thread and on up to `run.threads` sync threads. Every thread takes
 * the next lane, the largest first, when it is free (a counter they share), once the syncs
 * this process queued before for the lanes' files are done. Returns each unit's result. A
 * thread that cannot start, stops short or ends leaves its lanes to this thread: the results
 * are the same, only later.
 */
export async function runLanes<T extends LaneUnit>(
  run: LaneRun<T>,
): Promise<{ results: Map<T, SyncFileResult>; onThreads: number }> {
  const order = [...run.lanes].sort((a, b) => b.bytes - a.bytes);
  const finished = order.map(() => deferred());
  const before = order.flatMap((lane, i) =>
    lane.units.map((u) => run.track(u.file, finished[i]!.promise)),
  );
  const threads = run.threads > 0 && order.length > 1 ? threadPool(run.threads) : [];
  const next = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const results = new Map<T, SyncFileResult>();
  const mine = new Set<number>();
  const answered = new Set<number>();
  const leftovers: Promise<void>[] = [];
  let onThreads = 0;
  const runLane = async (i: number, from = 0): Promise<void> => {
    for (const unit of order[i]!.units.slice(from)) results.set(unit, await run.syncNow(unit));
    finished[i]!.resolve();
  };
  const answer = (reply: LaneReply): void => {
    const units = order[reply.lane]!.units;
    answered.add(reply.lane);
    onThreads += reply.results.length;
    reply.results.forEach((result, i) => results.set(units[i]!, result));
    if (reply.results.length < units.length)
      leftovers.push(runLane(reply.lane, reply.results.length));
    else finished[reply.lane]!.resolve();
  };
  const queuedBefore = Promise.all(before.map((p) => p.catch(() => undefined)));
  const request = { ...run.target, lanes: order.map(plainUnits), next: sharedOf(next) };
  const started = threads.map((thread) => {
    const first = deferred();
    const done = Promise.all([thread.ready, queuedBefore]).then(([ready]) =>
      ready
        ? thread.lanes(request, (reply) => {
            first.resolve();
            answer(reply);
          })
        : undefined,
    );
    void done.finally(first.resolve);
    return { first: first.promise, done };
  });
  const ownShare = async (): Promise<void> => {
    for (const unit of run.hereOnly) results.set(unit, await run.syncQueued(unit));
    await queuedBefore;
    if (run.afterThreadsStart) await Promise.all(started.map((s) => s.first));
    for (let i = Atomics.add(next, 0, 1); i < order.length; i = Atomics.add(next, 0, 1)) {
      mine.add(i);
      await runLane(i);
    }
  };
  try {
    await Promise.all([ownShare(), ...started.map((s) => s.done)]);
    await Promise.all(leftovers);
    // Lanes a thread took but never answered for (it ended on the way): done here.
    for (let i = 0; i < order.length; i++) if (!mine.has(i) && !answered.has(i)) await runLane(i);
  } finally {
    for (const f of finished) f.resolve();
    await Promise.all(threads.map((t) => t.release()));
    idleLater();
  }
  return { results, onThreads };
}

const sharedOf = (array: Int32Array): SharedArrayBuffer => array.buffer as SharedArrayBuffer;

const plainUnits = (lane: Lane<LaneUnit>): LaneUnit[] =>
  lane.units.map((u) => ({ kind: u.kind, file: u.file }));

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

type LanesRequest = Omit<Extract<ThreadRequest, { type: 'lanes' }>, 'type' | 'id'>;

/** One sync thread: a worker running sync-thread.ts. */
class SyncThread {
  readonly ready: Promise<boolean>;
  private readonly worker: Worker;
  /** Per request: what its messages go to; undefined when the thread ended. */
  private readonly handlers = new Map<number, (message: ThreadMessage | undefined) => void>();
  private next = 0;
  dead = false;

  constructor(entry: ThreadEntry) {
    const start: ThreadStart = { gate: shareWriteGate() };
    this.worker = new Worker(entry.code, { eval: entry.eval, workerData: start });
    this.ready = new Promise<boolean>((resolve) => {
      this.worker.once('message', () => resolve(true));
      this.worker.once('error', () => resolve(false));
      this.worker.once('exit', () => resolve(false));
    });
    // Referenced while it starts and while it works (ask): a sync awaiting only its threads
    // must keep the process alive; an idle thread must not.
    void this.ready.then(() => {
      if (this.handlers.size === 0) this.worker.unref();
    });
    this.worker.on('message', (message: ThreadMessage) => {
      if (message.type !== 'ready') this.handlers.get(message.id)?.(message);
    });
    const end = (): void => {
      this.dead = true;
      for (const handler of [...this.handlers.values()]) handler(undefined);
      this.handlers.clear();
    };
    this.worker.on('error', end);
    this.worker.on('exit', end);
  }

  /** Takes lanes of `request` until none is left; `onLane` gets each lane's answer. */
  lanes(request: LanesRequest, onLane: (reply: LaneReply) => void): Promise<void> {
    return this.ask({ ...request, type: 'lanes' }, (message) => {
      if (message?.type === 'lane') onLane(message);
      return message === undefined || message.type === 'done';
    });
  }

  /** Closes the thread's store of the folder (the sync is over). */
  async release(): Promise<void> {
    if (!this.dead && (await this.ready))
      await this.ask({ type: 'release' }, (message) => message?.type !== 'lane');
  }

  stop(): void {
    void this.worker.terminate();
  }

  /** Sends a request; `last` says which message (undefined: the thread ended) is its last. */
  private ask(
    request: (LanesRequest & { type: 'lanes' }) | { type: 'release' },
    last: (message: ThreadMessage | undefined) => boolean,
  ): Promise<void> {
    if (this.dead) return Promise.resolve();
    const id = this.next++;
    if (this.handlers.size === 0) this.worker.ref();
    return new Promise<void>((resolve) => {
      this.handlers.set(id, (message) => {
        if (!last(message)) return;
        this.handlers.delete(id);
        if (this.handlers.size === 0) this.worker.unref();
        resolve();
      });
      this.worker.postMessage({ ...request, id });
    });
  }
}

let threads: SyncThread[] = [];
let idle: NodeJS.Timeout | undefined;

/** `count` threads, kept from the last sync when still there (their code already compiled). */
function threadPool(count: number): SyncThread[] {
  clearTimeout(idle);
  threads = threads.filter((t) => !t.dead);
  const entry = threadEntry();
  while (threads.length < count) threads.push(new SyncThread(entry));
  return threads.slice(0, count);
}

function idleLater(): void {
  clearTimeout(idle);
  idle = setTimeout(() => {
    for (const thread of threads) thread.stop();
    threads = [];
  }, IDLE_MS);
  idle.unref();
}

interface ThreadEntry {
  code: string | URL;
  eval: boolean;
}

/**
 * out/main/sync-thread.js beside the bundle this code is in (or above its chunks/); from the
 * source tree (tests, the bench), sync-thread.ts through tsx's loader, registered in the
 * thread itself (a worker does not inherit the loader `--import tsx` gave this one).
 */
function threadEntry(fromUrl: string = import.meta.url): ThreadEntry {
  const built = builtEntry(fromUrl, 'sync-thread.js');
  if (built !== undefined) return { code: pathToFileURL(built), eval: false };
  const source = pathToFileURL(path.join(path.dirname(fileURLToPath(fromUrl)), 'sync-thread.ts'));
  return {
    code: `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); });`,
    eval: true,
  };
}
