import type { Duplex } from 'node:stream';
import type { HostMessage } from '../../shared/worker-protocol';

/**
 * A running task process as its host sees it. `child_process.fork` (CLI, `cwb serve`) and
 * Electron's `utilityProcess.fork` (the app) both fit behind this, so the supervisor
 * never knows which one it drives.
 */
export interface WorkerHandle {
  readonly pid: number | undefined;
  send(message: HostMessage): void;
  onMessage(listener: (message: unknown) => void): void;
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void;
  kill(signal?: NodeJS.Signals): void;
  /**
   * A pipe of its own to the process (its file descriptor INDEX_PIPE_FD), over which it asks
   * the host for its task index (task-index-server.ts). Node's fork has one; Electron's
   * utilityProcess cannot give a child more pipes, so the app's task processes open
   * tasks.db themselves.
   */
  readonly indexPipe?: Duplex;
}

/** The task process's end of `WorkerHandle.indexPipe`: the stdio slot after the IPC channel. */
export const INDEX_PIPE_FD = 4;

/**
 * Starts one task process with `env`, already allow-listed by the supervisor (no secret in
 * it); the secrets it needs come in the `start` message, never in its environment or argv.
 */
export type ForkWorker = (options: { env: NodeJS.ProcessEnv }) => WorkerHandle;
