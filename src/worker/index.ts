import { hostMessageSchema, taskSpecSchema, type TaskSpec } from '../shared/worker-protocol';
import { connectToHost } from './worker-channel';
import { runTaskProcess } from './task-process';
import { diskFullReason } from '../core/agent/disk-full';

/**
 * Entry of a task process (one task = one process). Started by a host with IPC (the spec
 * arrives as a `start` message), or detached by `cwb run --detach` with the spec in argv.
 */
async function main(): Promise<number> {
  const host = connectToHost();
  // An open IPC channel keeps the process alive: whatever happens, let go of it at the end,
  // or a task process that failed would linger (and its task look running) forever.
  let spec: TaskSpec | undefined;
  try {
    spec = specFromArgv(process.argv.slice(2)) ?? (host ? await firstStart(host) : undefined);
    if (!spec) {
      process.stderr.write('cwb worker: no task spec (expected a start message or --spec JSON)\n');
      return 2;
    }
    return await runTaskProcess(spec, host);
  } catch (err) {
    // One line, not a stack: this is what a user sees of a task that could not run.
    const message = oneLine(err);
    if (spec) host?.send({ type: 'error', uuid: spec.uuid, message });
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

function specFromArgv(argv: string[]): TaskSpec | undefined {
  const i = argv.indexOf('--spec');
  if (i < 0 || argv[i + 1] === undefined) return undefined;
  return taskSpecSchema.parse(JSON.parse(argv[i + 1]!));
}

function firstStart(host: NonNullable<ReturnType<typeof connectToHost>>): Promise<TaskSpec> {
  return new Promise((resolve) => {
    host.onMessage((raw) => {
      const parsed = hostMessageSchema.safeParse(raw);
      if (parsed.success && parsed.data.type === 'start') resolve(parsed.data.spec);
    });
  });
}

void main().then((code) => {
  process.exitCode = code;
});
