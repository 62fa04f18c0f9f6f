import { hostMessageSchema, type HostMessage } from '../shared/worker-protocol';
import { connectToHost, type WorkerChannel } from './worker-channel';
import { runTaskProcess } from './task-process';
import { readStartFromStdin } from './stdin-start';
import { diskFullReason } from '../core/agent/disk-full';
import type { AppConfig } from '../core/config/app-config';

type Start = Extract<HostMessage, { type: 'start' }>;

/**
 * Entry of a task process (one task = one process). Started by a host with IPC (the spec
 * and the secrets arrive as a `start` message), or detached by `cwb run --detach` with the
 * same message on stdin (`--stdin`). Never in argv or the environment: both are readable
 * by any process of the user (`/proc/<pid>/cmdline`, `/proc/<pid>/environ`), and the
 * environment is inherited by every command the task runs.
 */
async function main(): Promise<number> {
  const host = connectToHost();
  // An open IPC channel keeps the process alive: whatever happens, let go of it at the end,
  // or a task process that failed would linger (and its task look running) forever.
  let start: Start | undefined;
  try {
    start = process.argv.includes('--stdin')
      ? await readStartFromStdin(process.stdin)
      : host
        ? await firstStart(host)
        : undefined;
    if (!start) {
      process.stderr.write('cwb worker: no task spec (expected a start message, or --stdin)\n');
      return 2;
    }
    // In memory only: never copied into process.env, which every child would inherit.
    const env: NodeJS.ProcessEnv = { ...process.env, ...start.configEnv };
    // Its host loaded it through the config's full schema (worker-protocol.ts).
    const config = start.config as AppConfig | undefined;
    return await runTaskProcess(start.spec, host, env, {
      ...(config && { config }),
      ...(start.indexFd !== undefined && { indexFd: start.indexFd }),
    });
  } catch (err) {
    // One line, not a stack: this is what a user sees of a task that could not run.
    const message = oneLine(err);
    if (start) host?.send({ type: 'error', uuid: start.spec.uuid, message });
    process.stderr.write(`cwb worker: ${message}\n`);
    return 1;
  } finally {
    host?.release();
  }
}

function oneLine(err: unknown): string {
  const message = diskFullReason(err) ?? (err instanceof Error ? err.message : String(err));
  return message.split('\n')[0] ?? '';
}

function firstStart(host: WorkerChannel): Promise<Start> {
  return new Promise((resolve) => {
    host.onMessage((raw) => {
      const parsed = hostMessageSchema.safeParse(raw);
      if (parsed.success && parsed.data.type === 'start') resolve(parsed.data);
    });
  });
}

void main().then((code) => {
  process.exitCode = code;
});
