/**
 * A thread of a parallel first sync (sync-threads.ts): syncs the lanes of session files it is
 * given into the contexts folder named, as the sync of the thread that started it would, and
 * answers with each file's result. Built as out/main/sync-thread.js; run from the TypeScript
 * source through tsx's loader (tests, the bench).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { joinWriteGate } from '../db/write-gate';
import { TaskRepository } from '../db/task-repository';
import { ContextStore } from '../store/context-store';
import { sourceKind } from './source-kinds';
import { syncFile, type SyncFileResult } from './sync-file';
import type { LaneReply, ThreadRequest, ThreadStart } from './sync-thread-protocol';

const start = workerData as ThreadStart;
joinWriteGate(start.gate);

/** The contexts folder's store of the sync under way; closed when that sync releases it. */
let open: { root: string; store: ContextStore } | undefined;

function storeFor(request: Extract<ThreadRequest, { type: 'lane' }>): ContextStore {
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

async function lane(request: Extract<ThreadRequest, { type: 'lane' }>): Promise<LaneReply> {
  const results: SyncFileResult[] = [];
  try {
    const store = storeFor(request);
    for (const unit of request.units) {
      const kind = sourceKind(unit.kind);
      // Not a kind this thread knows (one registered at run time): the sync's thread does it.
      if (kind === undefined) break;
      results.push(await syncFile(store, kind, unit.file, { quietMs: request.quietMs }));
    }
  } catch (err) {
    return { type: 'lane', id: request.id, results, error: (err as Error).message };
  }
  return { type: 'lane', id: request.id, results };
}

parentPort?.on('message', (request: ThreadRequest) => {
  if (request.type === 'release') {
    open?.store.close();
    open = undefined;
    parentPort?.postMessage({ type: 'released', id: request.id });
    return;
  }
  void lane(request).then((reply) => parentPort?.postMessage(reply));
});
parentPort?.postMessage({ type: 'ready' });
