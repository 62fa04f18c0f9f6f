import type { UtilityProcess, utilityProcess as UtilityProcessModule } from 'electron';
import type { HostMessage } from '../shared/worker-protocol';
import type { ForkWorker, WorkerHandle } from '../core/supervisor/worker-handle';
import { TASK_PROCESS_V8_FLAGS, taskProcessEnv } from '../core/supervisor/task-process-flags';

type Fork = (typeof UtilityProcessModule)['fork'];

/**
 * Electron's `utilityProcess.fork` behind the supervisor's WorkerHandle, so the desktop
 * app runs tasks exactly as `cwb serve` does (one task = one process). The worker talks
 * through `process.parentPort` (src/worker/worker-channel.ts). Messages sent before the
 * child has spawned are held and delivered on `spawn`.
 */
export function utilityProcessForkWorker(fork: Fork, entry: string): ForkWorker {
  return ({ env }) => {
    const child: UtilityProcess = fork(entry, [], {
      env: taskProcessEnv(env),
      execArgv: [...TASK_PROCESS_V8_FLAGS],
      stdio: ['ignore', 'ignore', 'pipe'],
      serviceName: 'Context Workbench task',
    });
    let spawned = false;
    const pending: HostMessage[] = [];
    child.on('spawn', () => {
      spawned = true;
      for (const message of pending.splice(0)) child.postMessage(message);
    });
    // Kept for crash reports, never echoed: a worker's stderr might repeat its input.
    let stderrTail = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderrTail = (stderrTail + d.toString()).slice(-4000);
    });
    const handle: WorkerHandle & { stderrTail(): string } = {
      get pid() {
        return child.pid;
      },
      send: (message) => {
        if (spawned) child.postMessage(message);
        else pending.push(message);
      },
      onMessage: (listener) => child.on('message', listener),
      // A utility process reports no signal: a kill shows as its exit code.
      onExit: (listener) => child.on('exit', (code) => listener(code, null)),
      kill: () => {
        child.kill();
      },
      stderrTail: () => stderrTail,
    };
    return handle;
  };
}
