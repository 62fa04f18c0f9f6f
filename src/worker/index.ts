import { hostMessageSchema, taskSpecSchema, type TaskSpec } from '../shared/worker-protocol';
import { connectToHost } from './worker-channel';
import { runTaskProcess } from './task-process';

/**
 * Entry of a task process (one task = one process). Started by a host with IPC (the spec
 * arrives as a `start` message), or detached by `cwb run --detach` with the spec in argv.
 */
async function main(): Promise<number> {
  const host = connectToHost();
  const spec = specFromArgv(process.argv.slice(2)) ?? (host ? await firstStart(host) : undefined);
  if (!spec) {
    process.stderr.write('cwb worker: no task spec (expected a start message or --spec JSON)\n');
    return 2;
  }
  const code = await runTaskProcess(spec, host);
  host?.release();
  return code;
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

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(
      `cwb worker: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = 1;
  },
);
