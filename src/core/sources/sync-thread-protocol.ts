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

export type ThreadRequest =
  | {
      type: 'lane';
      id: number;
      /** The contexts folder and how its store was opened. */
      root: string;
      fsync: boolean;
      host: string;
      quietMs: number | undefined;
      units: LaneUnit[];
    }
  /** The sync is over: the thread closes its store of the folder. */
  | { type: 'release'; id: number };

/**
 * A lane's results, one per unit in order; fewer when the thread stopped (it could not open
 * the store, a sync threw, a kind it does not know): the sync's own thread does the rest.
 */
export interface LaneReply {
  type: 'lane';
  id: number;
  results: SyncFileResult[];
  /** Why it stopped short, if it did. */
  error?: string;
}

export type ThreadMessage = LaneReply | { type: 'released'; id: number } | { type: 'ready' };
