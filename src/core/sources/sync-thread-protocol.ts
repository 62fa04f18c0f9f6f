import type { SyncFileResult } from './sync-file';

/** What a sync thread (sync-thread.ts) is started with. */
export interface ThreadStart {
  /** The write gate of the process's threads (src/core/db/write-gate.ts). */
  gate: SharedArrayBuffer;
}

/** One session file of a lane: its source kind's id and its path. */
export interface LaneUnit {
  kind: string;
  file: string;
}

/** Where a sync thread opens the contexts folder: as the sync's own store was opened. */
export interface LaneTarget {
  root: string;
  fsync: boolean;
  host: string;
  quietMs: number | undefined;
}

export type ThreadRequest =
  | (LaneTarget & {
      type: 'lanes';
      id: number;
      /** Every lane of the sync, the largest first. */
      lanes: LaneUnit[][];
      /**
       * The next lane to take (an Int32 shared by every thread of the sync): each thread
       * takes one with Atomics.add when it is free, without waiting for another's answer.
       */
      next: SharedArrayBuffer;
    })
  /** The sync is over: the thread closes its store of the folder. */
  | { type: 'release'; id: number };

/**
 * A lane's results, one per unit in order; fewer when the thread stopped (a sync threw, a
 * kind it does not know, the store would not open): the sync's own thread does the rest.
 */
export interface LaneReply {
  type: 'lane';
  id: number;
  lane: number;
  results: SyncFileResult[];
  /** Why it stopped short, if it did. */
  error?: string;
}

export type ThreadMessage =
  | LaneReply
  /** The thread takes no more lanes of request `id`. */
  | { type: 'done'; id: number }
  | { type: 'released'; id: number }
  | { type: 'ready' };
