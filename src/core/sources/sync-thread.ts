/**
 * A thread of a parallel first sync (sync-threads.ts): takes lanes of session files from the
 * sync's shared counter and syncs them into the contexts folder named, as the sync's own
 * thread would, answering with each lane's results. Built as out/main/sync-thread.js; run
 * from the TypeScript source through tsx's loader (tests, the bench).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { joinWriteGate } from '../db/write-gate';
import { TaskRepository } from '../db/task-repository';
import { ContextStore } from '../store/context-store';
import { sourceKind } from './source-kinds';
import { syncFile, type SyncFileResult } from './sync-file';
import type { LaneReply, ThreadMessage, ThreadRequest, ThreadStart } from './sync-thread-protocol';

type LanesRequest = Extract<ThreadRequest, { type: 'lanes' }>;

const start = workerData as ThreadStart;
joinWriteGate(start.gate);

/** The contexts folder's store of the sync under way; closed when that sync releases it. */
let open: { root: string; store: ContextStore } | undefined;

function storeFor(request: LanesRequest): ContextStore {
  if (open?.root === request.root) return open.store;
  open?.store.close();
  open = undefined;
  // The sync's own thread reconciled the folder when it opened it.
  const store = ContextStore.open(request.root, {
    recover: false,
    fsync: request.fsync,
    host: request.host,
  });
  if (!(store.repo instanceof TaskRepository)) {
    store.close();
    throw new Error('a parallel sync needs tasks.db');
  }
  open = { root: request.root, store };
  return store;
}

async function syncLane(request: LanesRequest, lane: number): Promise<LaneReply> {
  const results: SyncFileResult[] = [];
  try {
    const store = storeFor(request);
    for (const unit of request.lanes[lane]!) {
      const kind = sourceKind(unit.kind);
      if (kind === undefined)
        throw new Error(`a source kind this thread does not know: ${unit.kind}`);
      results.push(await syncFile(store, kind, unit.file, { quietMs: request.quietMs }));
    }
  } catch (err) {
    return { type: 'lane', id: request.id, lane, results, error: (err as Error).message };
  }
  return { type: 'lane', id: request.id, lane, results };
}

/** Lanes taken one after another until none is left or one stops short. */
async function takeLanes(request: LanesRequest): Promise<void> {
  const next = new Int32Array(request.next);
  for (;;) {
    const lane = Atomics.add(next, 0, 1);
    if (lane >= request.lanes.length) break;
    const reply = await syncLane(request, lane);
    post(reply);
    // What stopped it would likely stop the next lane too: the sync's thread takes them.
    if (reply.error !== undefined) break;
  }
  post({ type: 'done', id: request.id });
}

function post(message: ThreadMessage): void {
  parentPort?.postMessage(message);
}

parentPort?.on('message', (request: ThreadRequest) => {
  if (request.type === 'release') {
    open?.store.close();
    open = undefined;
    post({ type: 'released', id: request.id });
    return;
  }
  void takeLanes(request);
});
post({ type: 'ready' });
