import type { Command } from 'commander';
import type { TaskRow } from '../../shared/task-types';
import { CwbError } from '../../core/errors';
import { resolveContext, withStore, type GlobalOptions } from '../cli-context';
import { printJson, type Output } from '../output';
import { parseCount } from '../parse-args';
import { parseTaskUuidArg } from '../task-uuid-arg';
import { runAttached } from './run';

const POLL_MS = 200;

export function registerControl(program: Command, output: Output): void {
  for (const action of ['pause', 'stop'] as const) {
    program
      .command(action)
      .description(
        action === 'pause'
          ? 'ask a running task to pause after its current step (it can be resumed)'
          : 'stop a running task now: what is in flight is cancelled and the task fails as "stopped"',
      )
      .argument('<uuid>', 'task id')
      .option('--wait <seconds>', 'how long to wait for the task to react', '30')
      .option('--json', 'print JSON')
      .action(async (uuidArg: string, opts: { wait: string; json?: boolean }, cmd: Command) => {
        const uuid = parseTaskUuidArg(uuidArg);
        const waitMs = parseCount('--wait', opts.wait, 0, 3600) * 1000;
        const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
        const row = await withStore(ctx, async (store) => {
          const before = store.requireTask(uuid);
          if (before.status !== 'running') {
            throw new CwbError('bad_input', `task ${uuid} is ${before.status}, not running`);
          }
          store.repo.requestControl(uuid, action);
          return await waitWhileRunning(() => store.requireTask(uuid), waitMs);
        });
        if (opts.json)
          printJson(output, { uuid, requested: action, status: row.status, task: row });
        else if (row.status === 'running')
          output.out(`${action} requested; task ${uuid} is still finishing its current step`);
        else
          output.out(
            `task ${uuid} is ${row.status}${row.error_message ? ` (${row.error_message})` : ''}`,
          );
      });
  }

  program
    .command('resume')
    .description('continue a paused or interrupted task in a new process, from its files')
    .argument('<uuid>', 'task id')
    .option(
      '--max-turns <n>',
      "the task's limit on model calls, counted from its first (default: what it was started with)",
    )
    .option('--json', 'print JSON')
    .action(async (uuidArg: string, opts: { maxTurns?: string; json?: boolean }, cmd: Command) => {
      const uuid = parseTaskUuidArg(uuidArg);
      const maxTurns =
        opts.maxTurns === undefined
          ? undefined
          : parseCount('--max-turns', opts.maxTurns, 1, 10_000);
      const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
      const row = await withStore(ctx, (store) => store.requireTask(uuid));
      if (row.status === 'running' || row.status === 'completed') {
        throw new CwbError(
          'bad_input',
          `task ${uuid} is ${row.status}; only paused or failed tasks can be resumed`,
        );
      }
      if (maxTurns !== undefined && maxTurns <= row.llm_call_count) {
        throw new CwbError(
          'usage',
          `--max-turns counts from the task's first model call: task ${uuid} has made ${row.llm_call_count} already, so pass more than that`,
        );
      }
      if (!opts.json) output.out(uuid);
      await runAttached(ctx, output, uuid, opts.json === true, (s) =>
        s.resume(uuid, { ...(maxTurns !== undefined && { maxTurns }) }),
      );
    });
}

async function waitWhileRunning(read: () => TaskRow, waitMs: number): Promise<TaskRow> {
  const deadline = Date.now() + waitMs;
  let row = read();
  while (row.status === 'running' && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    row = read();
  }
  return row;
}
