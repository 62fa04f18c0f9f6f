import { fork } from 'node:child_process';
import type { ForkWorker, WorkerHandle } from '../../src/core/supervisor/worker-handle';
import { BUILT_WORKER } from './run-ts';

export interface CapturedWorker {
  pid: number | undefined;
  /** Everything the task process wrote to stderr so far (nodeForkWorker keeps only a tail). */
  stderr(): string;
}

/**
 * A fork function for TaskSupervisor that runs the built task process like
 * `nodeForkWorker` does, but keeps each worker's whole stderr, so a test can grep every
 * worker's output (for SQLITE_BUSY, stack traces or a leaked key).
 */
export function capturingFork(): { fork: ForkWorker; workers: CapturedWorker[] } {
  const workers: CapturedWorker[] = [];
  const forkWorker: ForkWorker = ({ env }) => {
    const child = fork(BUILT_WORKER.file, [], {
      execArgv: BUILT_WORKER.execArgv,
      env,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    workers.push({ pid: child.pid, stderr: () => stderr });
    const handle: WorkerHandle = {
      pid: child.pid,
      send: (message) => {
        if (child.connected) child.send(message);
      },
      onMessage: (listener) => child.on('message', listener),
      onExit: (listener) => child.on('exit', listener),
      kill: (signal) => child.kill(signal),
    };
    return handle;
  };
  return { fork: forkWorker, workers };
}
