import type { TaskStatus } from '../task-types';
import type { WorkerEvent } from '../worker-protocol';

/**
 * Live events pushed to the UI (Electron: an IPC channel; `cwb serve`: SSE). Task events
 * come from the task processes this host supervises, unchanged (status, message appended,
 * statistics, compaction started/finished, notices, errors); the host adds its own.
 */
export type WorkbenchEvent =
  | WorkerEvent
  /** A supervised task process ended. */
  | {
      type: 'task-exit';
      uuid: string;
      status: TaskStatus;
      code: number | null;
      signal: string | null;
    }
  /**
   * tasks.db changed in a way the UI should re-read: an import, a compaction or undo done
   * by this host, or a write by another process (noticed by polling the table's updated_at).
   */
  | { type: 'tasks-changed'; reason: TasksChangedReason; uuids: string[] }
  /** A step of a compaction this host runs for the UI ended (progress, step by step). */
  | {
      type: 'compaction-step';
      uuid: string;
      index: number;
      total: number;
      strategy: string;
      applied: boolean;
      reason?: string;
      tokensBefore: number;
      tokensAfter: number;
    };

export type TasksChangedReason =
  'import' | 'compaction' | 'undo' | 'rewind' | 'start' | 'control' | 'external';

export type WorkbenchEventType = WorkbenchEvent['type'];

export type Unsubscribe = () => void;
