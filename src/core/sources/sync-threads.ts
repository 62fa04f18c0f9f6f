import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { shareWriteGate } from '../db/write-gate';
import type { SyncFileResult } from './sync-file';
import type { LaneReply, LaneUnit, ThreadMessage, ThreadStart } from './sync-thread-protocol';

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

/** Where a lane's thread opens the contexts folder, as the sync's own store was opened. */
export interface LaneTarget {
  root: string;
  fsync: boolean;
  host: string;
  quietMs: number | undefined;
}

/**
 * Runs `lanes` on this thread (`here`) and on up to `count` sync threads; `hereOnly` units run
 * on this thread, first. Returns each unit's result. A thread that cannot start, or stops
 * short, leaves its units to this thread: the results are the same, only later.
 * `afterThreadsStart` (tests): this thread takes lanes only once the others have started.
 */
export async function runLanes<T extends { kind: string; file: string }>(
  lanes: Lane<T>[],
  hereOnly: T[],
  count: number,
  target: LaneTarget,
  here: (unit: T) => Promise<SyncFileResult>,
  track: (file: string, done: Promise<unknown>) => void,
  options: { afterThreadsStart?: boolean } = {},
): Promise<{ results: Map<T, SyncFileResult>; onThreads: number }> {
  const queue = [...lanes].sort((a, b) => b.bytes - a.bytes);
  const threads = count > 0 && queue.length > 1 ? threadPool(count) : [];
  const results = new Map<T, SyncFileResult>();
  let onThreads = 0;
  const runHere = async (units: T[]): Promise<void> => {
    for (const unit of units) results.set(unit, await here(unit));
  };
  const ownShare = async (): Promise<void> => {
    await runHere(hereOnly);
    if (options.afterThreadsStart) await Promise.all(threads.map((t) => t.ready));
    for (let lane = queue.shift(); lane; lane = queue.shift()) await runHere(lane.units);
  };
  const threadShare = async (thread: SyncThread): Promise<void> => {
    if (!(await thread.ready)) return;
    for (let lane = queue.shift(); lane; lane = queue.shift()) {
      const reply = thread.lane(target, lane.units);
      for (const unit of lane.units) track(unit.file, reply);
      const { results: done } = await reply;
      onThreads += done.length;
      lane.units.forEach((unit, i) => done[i] && results.set(unit, done[i]));
      await runHere(lane.units.slice(done.length));
    }
  };
  try {
    await Promise.all([ownShare(), ...threads.map(threadShare)]);
  } finally {
    await Promise.all(threads.map((t) => t.release()));
    idleLater();
  }
  return { results, onThreads };
}

/** One sync thread: a worker running sync-thread.ts. */
class SyncThread {
  readonly ready: Promise<boolean>;
  private readonly worker: Worker;
  private readonly waiting = new Map<number, (reply: ThreadMessage) => void>();
  private next = 0;
  private busy = 0;
  dead = false;

  constructor(entry: ThreadEntry) {
    const start: ThreadStart = { gate: shareWriteGate() };
    this.worker = new Worker(entry.code, { eval: entry.eval, workerData: start });
    this.worker.unref();
    this.ready = new Promise<boolean>((resolve) => {
      this.worker.once('message', () => resolve(true));
      this.worker.once('error', () => resolve(false));
      this.worker.once('exit', () => resolve(false));
    });
    this.worker.on('message', (message: ThreadMessage) => {
      if (message.type === 'ready') return;
      this.waiting.get(message.id)?.(message);
      this.waiting.delete(message.id);
    });
    const end = (error: string): void => {
      this.dead = true;
      for (const [id, answer] of this.waiting)
        answer({ type: 'lane', id, results: [], error } satisfies LaneReply);
      this.waiting.clear();
    };
    this.worker.on('error', (err) => end(err.message));
    this.worker.on('exit', (code) => end(`the sync thread ended (exit code ${code})`));
  }

  lane<T extends LaneUnit>(target: LaneTarget, units: T[]): Promise<LaneReply> {
    const plain = units.map((u) => ({ kind: u.kind, file: u.file }));
    return this.ask({ type: 'lane', ...target, units: plain }) as Promise<LaneReply>;
  }

  /** Closes the thread's store of the folder (the sync is over). */
  async release(): Promise<void> {
    if (!this.dead && (await this.ready)) await this.ask({ type: 'release' });
  }

  stop(): void {
    void this.worker.terminate();
  }

  private ask(
    request: { type: 'lane' | 'release' } & Record<string, unknown>,
  ): Promise<ThreadMessage> {
    if (this.dead)
      return Promise.resolve({ type: 'lane', id: -1, results: [], error: 'the sync thread ended' });
    const id = this.next++;
    // Referenced while it works: a sync awaiting only its threads must keep the process alive.
    if (this.busy++ === 0) this.worker.ref();
    return new Promise<ThreadMessage>((resolve) => {
      this.waiting.set(id, (reply) => {
        if (--this.busy === 0) this.worker.unref();
        resolve(reply);
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
  const here = path.dirname(fileURLToPath(fromUrl));
  if (!fromUrl.endsWith('.ts'))
    for (const dir of [here, path.dirname(here)]) {
      const built = path.join(dir, 'sync-thread.js');
      if (fs.existsSync(built)) return { code: pathToFileURL(built), eval: false };
    }
  const source = pathToFileURL(path.join(here, 'sync-thread.ts')).href;
  return {
    code: `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); });`,
    eval: true,
  };
}
