import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import type { Command } from 'commander';
import { taskSpecSchema, type HostMessage, type TaskSpec } from '../../shared/worker-protocol';
import { prepareRun } from '../../core/agent/prepare-run';
import { loadConfig } from '../../core/config/load-config';
import { TaskSupervisor } from '../../core/supervisor/task-supervisor';
import { nodeForkWorker, resolveWorkerEntry } from '../../core/supervisor/node-fork';
import { configHandover } from '../../core/supervisor/config-env';
import { TASK_PROCESS_V8_FLAGS, taskProcessEnv } from '../../core/supervisor/task-process-flags';
import { CwbError } from '../../core/errors';
import {
  recoverContexts,
  resolveContext,
  withStore,
  type CliContext,
  type GlobalOptions,
} from '../cli-context';
import { followTask } from '../follow-task';
import { printJson, type Output } from '../output';
import { parseCount, parseChoice, parseStrategies } from '../parse-args';
import { STRATEGY_NAMES } from '../../shared/strategy-names';

interface RunOptions {
  prompt: string;
  title?: string;
  workdir?: string;
  provider?: string;
  baseUrl?: string;
  model?: string;
  taskKey?: string;
  user?: string;
  maxTurns: string;
  compaction?: string;
  detach?: boolean;
  json?: boolean;
}

export function registerRun(program: Command, output: Output): void {
  program
    .command('run')
    .description('run an agent task in its own process and follow it (Ctrl-C pauses it)')
    .requiredOption('--prompt <text>', 'what the agent should do')
    .option('--title <text>', 'a title for the task list (default: the first line of the prompt)')
    .option('--workdir <dir>', 'the folder the agent works in (default: the current folder)')
    .option('--provider <name>', 'openai, ollama or lmstudio (default: from the config)')
    .option('--base-url <url>', 'the provider URL (default: from the config)')
    .option('--model <name>', 'the model (default: from the config)')
    .option(
      '--task-key <key>',
      'source/owner/repo/type/id: runs with the same key inherit from each other',
    )
    .option('--user <name>', 'user of the task key (default: your login name)')
    .option('--max-turns <n>', 'stop after this many model calls', '50')
    .option(
      '--compaction <list>',
      `this task's compaction pipeline, e.g. tool-output-trim,summarize (${STRATEGY_NAMES.join(', ')})`,
    )
    .option('--detach', 'start the task in the background and return at once')
    .option('--json', 'print JSON')
    .action(async (opts: RunOptions, cmd: Command) => {
      const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
      const spec = taskSpecSchema.parse({
        uuid: crypto.randomUUID(),
        contextsRoot: ctx.root,
        configFile: ctx.configFile,
        mode: 'new',
        prompt: opts.prompt,
        title: opts.title ?? null,
        workdir: path.resolve(opts.workdir ?? process.cwd()),
        key: parseTaskKey(opts.taskKey, opts.user),
        ...(opts.provider !== undefined && {
          provider: parseChoice('--provider', opts.provider, ['openai', 'ollama', 'lmstudio']),
        }),
        ...(opts.model !== undefined && { model: opts.model }),
        ...(opts.baseUrl !== undefined && { baseUrl: opts.baseUrl }),
        maxTurns: parseCount('--max-turns', opts.maxTurns, 1, 10_000),
        ...(opts.compaction !== undefined && {
          compaction: parseStrategies('--compaction', opts.compaction),
        }),
      });
      // Config, model and limits are checked before any process starts.
      prepareRun(spec, process.env, loadConfig({ file: spec.configFile }).config);
      await recoverContexts(ctx);
      if (opts.detach) {
        await startDetached(spec, ctx.configFile);
        if (opts.json) printJson(output, { uuid: spec.uuid, detached: true });
        else output.out(spec.uuid);
        return;
      }
      if (!opts.json) output.out(spec.uuid);
      await runAttached(ctx, output, spec.uuid, opts.json === true, (s) => s.start({ ...spec }));
    });
}

/** Starts a task through a supervisor in this process and follows it to its end. */
export async function runAttached(
  ctx: CliContext,
  output: Output,
  uuid: string,
  json: boolean,
  launch: (s: TaskSupervisor) => void,
): Promise<void> {
  const supervisor = new TaskSupervisor({
    fork: nodeForkWorker(),
    contextsRoot: ctx.root,
    configFile: ctx.configFile,
  });
  launch(supervisor);
  const { exit, error, progress } = await followTask(supervisor, uuid, output, !json);
  const row = await withStore(ctx, (store) => store.requireTask(uuid));
  if (json) {
    printJson(output, {
      uuid,
      status: row.status,
      error: row.error_message,
      progress: progress ?? null,
      task: row,
    });
  } else {
    output.out(
      `${row.status}: ${row.llm_call_count} model calls, ${row.tool_call_count} tool calls, ${row.total_tokens} tokens`,
    );
  }
  if (exit.status === 'failed' || row.status === 'failed') {
    throw new CwbError(
      'bad_input',
      `task ${uuid} failed: ${row.error_message ?? error ?? 'unknown error'}`,
    );
  }
}

/**
 * `--detach`: the task process outlives this command; `cwb pause|stop UUID` reach it through
 * tasks.db. Like a supervised one it gets an allow-listed environment, and its start
 * message (spec and secrets) arrives on stdin, which it reads to the end and closes: never
 * argv or the environment, which any process of the user can read.
 */
async function startDetached(spec: TaskSpec, configFile: string | null): Promise<void> {
  const entry = resolveWorkerEntry();
  const start: HostMessage = { type: 'start', spec, ...configHandover(configFile, process.env) };
  const child = spawn(
    process.execPath,
    [...TASK_PROCESS_V8_FLAGS, ...entry.execArgv, entry.file, '--stdin'],
    {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      env: taskProcessEnv(process.env),
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.stdin!.once('error', reject);
    child.stdin!.end(JSON.stringify(start), () => resolve());
  });
  child.unref();
}

/** `source/owner/repo/type/id` (seed 000 task_key) plus the user. */
export function parseTaskKey(value: string | undefined, user: string | undefined): TaskSpec['key'] {
  const me = user ?? safeUsername();
  if (value === undefined)
    return { task_source: '', owner: '', repo: '', task_type: '', task_id: '', user: me };
  const parts = value.split('/');
  if (parts.length !== 5 || parts.some((p) => p.trim() === '')) {
    throw new CwbError(
      'usage',
      `--task-key: ${JSON.stringify(value)} is not source/owner/repo/type/id (e.g. github/acme/web/issue/27)`,
    );
  }
  const [task_source, owner, repo, task_type, task_id] = parts as [
    string,
    string,
    string,
    string,
    string,
  ];
  return { task_source, owner, repo, task_type, task_id, user: me };
}

function safeUsername(): string {
  try {
    return os.userInfo().username;
  } catch {
    return '';
  }
}
