import fs from 'node:fs';
import { waitForIndexInThisProcess } from '../core/db/pg-task-repository';
import { HOST_ENV, INDEX_URL_ENV } from '../core/db/open-task-index';
import path from 'node:path';
import { hostMessageSchema, type TaskSpec, type WorkerEvent } from '../shared/worker-protocol';
import type { TaskKey } from '../shared/task-types';
import { prepareRun, type PreparedRun as Prepared } from '../core/agent/prepare-run';
import { processSecrets } from '../core/llm/process-secrets';
import { scrubSecrets } from '../core/config/secrets';
import { ContextStore, type ContextStoreOptions } from '../core/store/context-store';
import { HostTaskIndex } from '../core/store/host-task-index';
import { DATABASE_FILE } from '../core/store/contexts-layout';
import type { TaskContextManager } from '../core/store/task-context-manager';
import { runAgentLoop } from '../core/agent/agent-loop';
import type { AgentOutcome, ChatClient, ToolSpec } from '../core/agent/agent-types';
import { DEFAULT_SYSTEM_PROMPT } from '../core/agent/system-prompt';
import { findInheritance, inheritanceMessage, inheritanceNotice } from '../core/agent/inheritance';
import { llmFinalSummary } from '../core/agent/llm-final-summary';
import { createCompactor } from '../core/compaction/compactor';
import { llmSummarizer } from '../core/compaction/llm-summarizer';
import { builtinToolDefinitions, executeTool } from '../core/tools/tool-registry';
import { CwbError } from '../core/errors';
import { commandEnv } from '../core/tools/command-env';
import { diskFullReason, notPausedByFullDisk, pausedByFullDisk } from '../core/agent/disk-full';
import {
  DEFAULT_MAX_TURNS,
  runSettingsOf,
  storableBaseUrl,
  withRunSettings,
} from '../core/agent/run-settings';
import type { WorkerChannel } from './worker-channel';
import type { AppConfig } from '../core/config/app-config';
import { TaskControl } from './control-state';
import { TASK_HEAP_SLACK_BYTES, exposedGc, heapTrimmer, type HeapTrimmer } from './heap-trim';
import { releaseIdleBuffers } from '../core/llm/buffer-pool';
import type { LlmClientOptions } from '../core/llm/llm-client';

/**
 * The fleet index and host name the host handed over (config-env.ts: through the start
 * message, as the URL may hold a password); none = tasks.db.
 */
function fleetIndex(env: NodeJS.ProcessEnv): { index?: string; host?: string } {
  return {
    ...(env[INDEX_URL_ENV] && { index: env[INDEX_URL_ENV] }),
    ...(env[HOST_ENV] && { host: env[HOST_ENV] }),
  };
}

/**
 * The task process's collections (heap-trim.ts), when it was started with `--expose-gc`
 * (TASK_PROCESS_V8_FLAGS); none in tests that run it in-process.
 */
function heapOfTaskProcess(): HeapTrimmer | undefined {
  const gc = exposedGc();
  return gc && heapTrimmer({ slackBytes: TASK_HEAP_SLACK_BYTES, gc });
}

/**
 * The LLM client's memory hooks: a check while a body is sent, and once it is all sent, its
 * pooled buffers dropped (not needed until the next call; kept, they were ~1.5 MiB through
 * every step) and a collection, so the answer is parsed in a heap cleared of the sending's
 * garbage (the bench's 1 GB run: 59 → 57 MiB, issue #17).
 */
function llmMemory(heap: HeapTrimmer): NonNullable<LlmClientOptions['memory']> {
  return {
    whileSending: heap.check,
    answerStarts: () => {
      releaseIdleBuffers();
      heap.collect();
    },
  };
}

/**
 * The task's index kept by the host over the pipe at `fd` (host-task-index.ts); if the host
 * goes away, tasks.db opened here.
 */
function indexThroughHost(
  root: string,
  fd: number,
  fleet: { index?: string; host?: string },
): HostTaskIndex {
  return new HostTaskIndex(fd, `${path.join(root, DATABASE_FILE)} (kept by the host)`, () =>
    ContextStore.open(root, { ...fleet, recover: false }),
  );
}

/** How long a task waits for its PostgreSQL index to come back before it fails. */
const INDEX_OUTAGE_WAIT_MS = 30 * 60_000;

/**
 * One task process (seed 000 §6): open the store, create or resume the task, run the agent
 * loop, and end the task as completed, paused or failed. Returns the process exit code:
 * 0 when the task was ended properly (whatever its outcome), 2 when it could not start, 1
 * when it could not be ended (tasks.db or the folder move failed too, e.g. a full disk).
 * `env` is what config loading and the LLM client read: the process's own environment
 * plus what the host handed over (the API key among it), kept in memory only.
 * `handover` is what the host did for it: the config it loaded (config-env.ts; without it
 * the task process loads config.yaml itself) and the pipe over which it keeps the task's
 * index (host-task-index.ts; without it the task process opens tasks.db itself).
 */
export async function runTaskProcess(
  spec: TaskSpec,
  host: WorkerChannel | undefined,
  env: NodeJS.ProcessEnv = process.env,
  handover: { config?: AppConfig; indexFd?: number } = {},
): Promise<number> {
  const emit = (event: WorkerEvent): void => host?.send(event);
  const fleet = fleetIndex(env);
  const hostIndex =
    handover.indexFd === undefined
      ? undefined
      : indexThroughHost(spec.contextsRoot, handover.indexFd, fleet);
  const storeOptions: ContextStoreOptions = { ...fleet, ...(hostIndex && { hosted: hostIndex }) };
  const control = new TaskControl();
  host?.onMessage((raw) => {
    const parsed = hostMessageSchema.safeParse(raw);
    if (!parsed.success || parsed.data.type === 'start') return;
    control.request(parsed.data.type === 'compact-now' ? 'compact' : parsed.data.type);
  });

  const heap = heapOfTaskProcess();
  let prepared: Prepared;
  let run: TaskSpec;
  try {
    run = spec.mode === 'resume' ? withTaskSettings(spec, storeOptions) : spec;
    const loaded = handover.config ?? (await loadTaskConfig(run, env));
    prepared = prepareRun(run, env, loaded, heap && llmMemory(heap));
  } catch (err) {
    emit({ type: 'error', uuid: spec.uuid, message: startError(err) });
    return 2;
  }
  const maxTurns = run.maxTurns ?? DEFAULT_MAX_TURNS;
  const { config, client, model, contextWindow, maxOutputTokens } = prepared;
  // A fleet's database that goes away mid-run pauses this task in place (its writes wait
  // and retry) rather than ending it; tasks.db is unaffected.
  waitForIndexInThisProcess(INDEX_OUTAGE_WAIT_MS);
  const store = ContextStore.open(spec.contextsRoot, {
    ...storeOptions,
    // Recovery reads every task's row and lists every task folder: with 10,000 tasks that
    // was ~100 ms and ~7 MiB more peak memory in every task process (issue #17). The host
    // that starts a task process has run it already (the app, `cwb serve` and `cwb resume`
    // when they open the store, `cwb run` just before it starts the process), and a
    // supervised process that dies is marked by its supervisor.
    recover: false,
    fsync: config.storage.durability === 'fsync',
    summarizer: llmFinalSummary({
      complete: (prompt, options) => client.complete(prompt, options),
    }),
  });
  let task: TaskContextManager;
  try {
    if (spec.mode === 'new') {
      task = createTask(store, { ...spec, maxTurns }, prepared, emit);
    } else {
      task = store.resumeTask(spec.uuid);
      if (spec.maxTurns !== undefined) keepMaxTurns(store, task, spec.maxTurns);
    }
  } catch (err) {
    emit({ type: 'error', uuid: spec.uuid, message: startError(err) });
    store.close();
    return 2;
  }
  emit({ type: 'status', uuid: task.uuid, status: 'running' });
  // A host that keeps the index reads the control column for this task (TaskSupervisor).
  control.watch(store.repo, task.uuid, () => !hostIndex || hostIndex.onItsOwn);

  const workdir = task.row().workdir ?? process.cwd();
  const allowRunCommand = config.tools.run_command;
  // The keys handed over by the host too: a command can find one in a file or a config.
  const toolSecrets = processSecrets(config, env);
  // Built from our own (allow-listed) environment; passed-through values from `env`.
  const childEnv = commandEnv(process.env, {
    passthrough: config.tools.env_passthrough,
    from: env,
    secretValues: toolSecrets,
  });
  const tools: ToolSpec[] = builtinToolDefinitions({ allowRunCommand });
  const chat: ChatClient = {
    model,
    chat: (request) => client.chat({ ...request, tools: [...(request.tools ?? [])], model }),
  };
  // What starting up left (the bundle's first run, opening the task) is let go here.
  heap?.collect();
  try {
    const outcome = await runAgentLoop({
      task,
      client: chat,
      tools,
      runTool: (name, args, signal) => {
        heap?.check();
        return executeTool(name, args, {
          workdir,
          toolOutputs: task.toolOutputs,
          planning: task.planning,
          messages: task.messages,
          allowRunCommand,
          signal,
          secretValues: toolSecrets,
          childEnv,
        });
      },
      compactor: createCompactor({
        task,
        // The strategies are loaded only once compaction is considered (not at all when off).
        steps: async () =>
          (await import('../core/compaction/pipeline')).buildPipeline(
            config,
            contextWindow,
            spec.compaction,
          ),
        enabled: config.compaction.enabled,
        auto: config.compaction.auto,
        summarizer: llmSummarizer(client, { model: config.compaction.model, workDir: task.dir }),
        contextWindow,
        maxOutputTokens,
        emit,
        signal: control.stopSignal,
      }),
      control,
      maxTurns,
      contextWindow,
      emit,
    }).finally(() => client.release()); // before the folder moves with the task's end
    await finish(task, outcome, maxTurns, emit);
    return 0;
  } catch (err) {
    return await endAfterError(task, err, emit, toolSecrets);
  } finally {
    control.dispose();
    store.close();
  }
}

/**
 * Ends a task whose run threw: paused when the disk is full (nothing is lost and it can go
 * on once space is freed), failed otherwise. Ending it needs tasks.db and a folder move,
 * which a completely full disk refuses too: then the host is told and the process exits
 * with 1, leaving the task "running" for recovery to mark interrupted once space is back.
 */
async function endAfterError(
  task: TaskContextManager,
  err: unknown,
  emit: (e: WorkerEvent) => void,
  secrets: readonly string[],
): Promise<number> {
  const uuid = task.uuid;
  const reason = diskFullReason(err);
  // An unexpected error's message goes to tasks.db, the host and stderr: it may quote a key.
  const message = reason ? pausedByFullDisk(reason) : scrubSecrets(messageOf(err), secrets);
  try {
    if (reason) await task.stop(message);
    else task.fail(message);
  } catch (endErr) {
    const told = reason
      ? notPausedByFullDisk(reason)
      : `${message} (and the task could not be marked failed: ${diskFullReason(endErr) ?? messageOf(endErr)})`;
    emit({ type: 'error', uuid, message: told });
    process.stderr.write(`cwb worker: ${told}\n`);
    return 1;
  }
  emit({ type: 'status', uuid, status: reason ? 'paused' : 'failed', error: message });
  return 0;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Why a task could not be created or resumed: a full disk says so and what to do. */
function startError(err: unknown): string {
  const reason = diskFullReason(err);
  return reason ? `${reason}: free some space and try again` : messageOf(err);
}

function createTask(
  store: ContextStore,
  spec: TaskSpec,
  prepared: Prepared,
  emit: (e: WorkerEvent) => void,
): TaskContextManager {
  const workdir = path.resolve(spec.workdir ?? process.cwd());
  if (!fs.statSync(workdir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new CwbError('bad_input', `working directory ${workdir} does not exist`);
  }
  const key: TaskKey = spec.key;
  const inherited = findInheritance(store, key, prepared.config.inheritance);
  const task = store.createTask({
    uuid: spec.uuid,
    key,
    title: spec.title ?? firstLine(spec.prompt),
    prompt: spec.prompt,
    workdir,
    parent_uuid: inherited?.uuid ?? null,
    llm_provider: prepared.client.provider,
    model: prepared.model,
    context_length: prepared.contextWindow,
    compression_threshold: prepared.config.storage.compression_threshold,
    metadata: withRunSettings(null, {
      ...(spec.maxTurns !== undefined && { max_turns: spec.maxTurns }),
      ...(spec.baseUrl !== undefined && { base_url: spec.baseUrl }),
    }),
  });
  if (spec.baseUrl !== undefined && !storableBaseUrl(spec.baseUrl)) {
    emit({
      type: 'notice',
      uuid: task.uuid,
      text: 'the base URL has credentials or a query in it, so it is not kept: pass it again when you resume this task',
    });
  }
  const append = (message: Parameters<TaskContextManager['addMessage']>[0]): void => {
    const record = task.addMessage(message);
    emit({
      type: 'message-appended',
      uuid: task.uuid,
      seq: record.seq,
      role: record.role,
      tokens: record.tokens,
    });
  };
  append({ role: 'system', content: spec.systemPrompt ?? DEFAULT_SYSTEM_PROMPT });
  if (inherited) {
    append({
      role: 'user',
      kind: 'inheritance',
      content: inheritanceMessage(inherited, prepared.config.inheritance.max_summary_tokens),
    });
    emit({ type: 'notice', uuid: task.uuid, text: inheritanceNotice(inherited) });
  }
  append({ role: 'user', content: spec.prompt });
  return task;
}

async function finish(
  task: TaskContextManager,
  outcome: AgentOutcome,
  maxTurns: number,
  emit: (e: WorkerEvent) => void,
): Promise<void> {
  const uuid = task.uuid;
  switch (outcome.kind) {
    case 'completed': {
      for (const f of await task.complete())
        emit({ type: 'notice', uuid, text: `${f.hook} failed: ${f.error}` });
      emit({ type: 'status', uuid, status: 'completed' });
      return;
    }
    case 'paused': {
      await task.stop();
      emit({ type: 'status', uuid, status: 'paused' });
      return;
    }
    case 'stopped':
    case 'max-turns': {
      const error =
        outcome.kind === 'stopped'
          ? 'stopped by the user'
          : `stopped after ${maxTurns} turns (max turns reached)`;
      task.fail(error);
      emit({ type: 'status', uuid, status: 'failed', error });
      return;
    }
  }
}

/**
 * The task's config when no host handed it over: config.yaml's loader (js-yaml and the
 * config's schemas, ~1.5 MiB of a task process's memory, issue #17) is loaded only then.
 */
async function loadTaskConfig(spec: TaskSpec, env: NodeJS.ProcessEnv): Promise<AppConfig> {
  const { loadConfig } = await import('../core/config/load-config');
  return loadConfig({ file: spec.configFile, env }).config;
}

/**
 * A resumed task keeps what it started with — provider, model, base URL and max turns —
 * whatever the config says now; what the resume asks for explicitly wins.
 */
function withTaskSettings(spec: TaskSpec, storeOptions: ContextStoreOptions): TaskSpec {
  const store = ContextStore.open(spec.contextsRoot, { ...storeOptions, recover: false });
  try {
    const row = store.requireTask(spec.uuid);
    const provider =
      row.llm_provider === 'openai' ||
      row.llm_provider === 'ollama' ||
      row.llm_provider === 'lmstudio'
        ? row.llm_provider
        : undefined;
    const kept = runSettingsOf(row.metadata);
    return {
      ...spec,
      ...(provider && !spec.provider && { provider }),
      ...(row.model && !spec.model && { model: row.model }),
      ...(kept.base_url && !spec.baseUrl && { baseUrl: kept.base_url }),
      ...(kept.max_turns && spec.maxTurns === undefined && { maxTurns: kept.max_turns }),
    };
  } finally {
    store.close();
  }
}

/** `cwb resume --max-turns N`: N is the task's limit from now on, for later resumes too. */
function keepMaxTurns(store: ContextStore, task: TaskContextManager, maxTurns: number): void {
  const { metadata } = task.row();
  store.repo.setMetadata(
    task.uuid,
    withRunSettings(metadata, { ...runSettingsOf(metadata), max_turns: maxTurns }),
  );
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
