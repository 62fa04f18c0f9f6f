import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import { INDEX_PIPE_FD, type ForkWorker, type WorkerHandle } from './worker-handle';
import type { Duplex } from 'node:stream';
import { TASK_PROCESS_V8_FLAGS, taskProcessEnv } from './task-process-flags';
import { builtEntry } from '../built-entry';

/** Where the task process entry is, and how Node must be started to run it. */
export interface WorkerEntry {
  file: string;
  execArgv: string[];
}

/**
 * The built bundle sits beside the CLI (`out/main/worker.cjs`); from the source tree (tests,
 * `tsx`), the TypeScript entry runs through tsx's loader.
 */
export function resolveWorkerEntry(fromUrl: string = import.meta.url): WorkerEntry {
  const built = builtEntry(fromUrl, 'worker.cjs');
  if (built !== undefined) return { file: built, execArgv: [] };
  let dir = path.dirname(fileURLToPath(fromUrl));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir)
    dir = path.dirname(dir);
  return { file: path.join(dir, 'src', 'worker', 'index.ts'), execArgv: ['--import', 'tsx'] };
}

/** `child_process.fork` behind a WorkerHandle: the fork function of the CLI and `cwb serve`. */
export function nodeForkWorker(entry: WorkerEntry = resolveWorkerEntry()): ForkWorker {
  return ({ env }) => {
    const child = fork(entry.file, [], {
      execArgv: [...TASK_PROCESS_V8_FLAGS, ...entry.execArgv],
      env: taskProcessEnv(env),
      // The pipe after the IPC channel is the task index's (task-index-server.ts).
      stdio: ['ignore', 'ignore', 'pipe', 'ipc', 'pipe'],
    });
    const indexPipe = child.stdio[INDEX_PIPE_FD] as Duplex | null;
    // A worker's stderr is kept for crash reports but never echoed: it might repeat input.
    let stderrTail = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderrTail = (stderrTail + d.toString()).slice(-4000);
    });
    const handle: WorkerHandle & { stderrTail(): string } = {
      pid: child.pid,
      send: (message) => {
        if (child.connected) child.send(message);
      },
      onMessage: (listener) => child.on('message', listener),
      onExit: (listener) => child.on('exit', listener),
      kill: (signal) => child.kill(signal),
      stderrTail: () => stderrTail,
      ...(indexPipe && { indexPipe }),
    };
    return handle;
  };
}
