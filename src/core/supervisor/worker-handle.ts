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
}

/**
 * Starts one task process with `env`, already allow-listed by the supervisor (no secret in
 * it); the secrets it needs come in the `start` message, never in its environment or argv.
 */
export type ForkWorker = (options: { env: NodeJS.ProcessEnv }) => WorkerHandle;
