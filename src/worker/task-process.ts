import fs from 'node:fs';
import path from 'node:path';
import { hostMessageSchema, type TaskSpec, type WorkerEvent } from '../shared/worker-protocol';
import type { TaskKey } from '../shared/task-types';
import { prepareRun, type PreparedRun as Prepared } from '../core/agent/prepare-run';
import { processSecrets } from '../core/llm/process-secrets';
import { ContextStore } from '../core/store/context-store';
import type { TaskContextManager } from '../core/store/task-context-manager';
import { runAgentLoop } from '../core/agent/agent-loop';
import type { AgentOutcome, ChatClient, ToolSpec } from '../core/agent/agent-types';
import { DEFAULT_SYSTEM_PROMPT } from '../core/agent/system-prompt';
import { findInheritance, inheritanceMessage, inheritanceNotice } from '../core/agent/inheritance';
import { llmFinalSummary } from '../core/agent/llm-final-summary';
import { createCompactor } from '../core/compaction/compactor';
import { buildPipeline } from '../core/compaction/pipeline';
import { llmSummarizer } from '../core/compaction/llm-summarizer';
import { builtinToolDefinitions, executeTool } from '../core/tools/tool-registry';
import { CwbError } from '../core/errors';
import type { WorkerChannel } from './worker-channel';
import { TaskControl } from './control-state';

/**
 * One task process (seed 000 §6): open the store, create or resume the task, run the agent
 * loop, and end the task as completed, paused or failed. Returns the process exit code:
 * 0 when the task was ended properly (whatever its outcome), 2 when it could not start.
 */
export async function runTaskProcess(
  spec: TaskSpec,
  host: WorkerChannel | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const emit = (event: WorkerEvent): void => host?.send(event);
  const control = new TaskControl();
  host?.onMessage((raw) => {
    const parsed = hostMessageSchema.safeParse(raw);
    if (!parsed.success || parsed.data.type === 'start') return;
    control.request(parsed.data.type === 'compact-now' ? 'compact' : parsed.data.type);
  });

  let prepared: Prepared;
  try {
    prepared = prepareRun(spec.mode === 'resume' ? withTaskModel(spec) : spec, env);
  } catch (err) {
    emit({ type: 'error', uuid: spec.uuid, message: (err as Error).message });
    return 2;
  }
  const { config, client, model, contextWindow, maxOutputTokens } = prepared;
  const store = ContextStore.open(spec.contextsRoot, {
    fsync: config.storage.durability === 'fsync',
    summarizer: llmFinalSummary({
      complete: (prompt, options) => client.complete(prompt, options),
    }),
  });
  let task: TaskContextManager;
  try {
    task =
      spec.mode === 'new' ? createTask(store, spec, prepared, emit) : store.resumeTask(spec.uuid);
  } catch (err) {
    emit({ type: 'error', uuid: spec.uuid, message: (err as Error).message });
    store.close();
    return 2;
  }
  emit({ type: 'status', uuid: task.uuid, status: 'running' });
  control.watch(store.repo, task.uuid);

  const workdir = task.row().workdir ?? process.cwd();
  const allowRunCommand = config.tools.run_command;
  // Also the keys only in the environment: a command can read them from ours (/proc/$PPID).
  const toolSecrets = processSecrets(config, env);
  const tools: ToolSpec[] = builtinToolDefinitions({ allowRunCommand });
  const chat: ChatClient = {
    model,
    chat: (request) => client.chat({ ...request, tools: [...(request.tools ?? [])], model }),
  };
  try {
    const outcome = await runAgentLoop({
      task,
      client: chat,
      tools,
      runTool: (name, args, signal) =>
        executeTool(name, args, {
          workdir,
          toolOutputs: task.toolOutputs,
          planning: task.planning,
          allowRunCommand,
          signal,
          secretValues: toolSecrets,
        }),
      compactor: createCompactor({
        task,
        steps: buildPipeline(config, contextWindow, spec.compaction),
        enabled: config.compaction.enabled,
        auto: config.compaction.auto,
        summarizer: llmSummarizer(client, { model: config.compaction.model, workDir: task.dir }),
        contextWindow,
        maxOutputTokens,
        emit,
        signal: control.stopSignal,
      }),
      control,
      maxTurns: spec.maxTurns,
      contextWindow,
      emit,
    });
    await finish(task, outcome, spec.maxTurns, emit);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    task.fail(message);
    emit({ type: 'status', uuid: task.uuid, status: 'failed', error: message });
  } finally {
    control.dispose();
    store.close();
  }
  return 0;
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
  });
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

/** A resumed task keeps the provider and model it started with, whatever the config says now. */
function withTaskModel(spec: TaskSpec): TaskSpec {
  const store = ContextStore.open(spec.contextsRoot, { recover: false });
  try {
    const row = store.requireTask(spec.uuid);
    const provider =
      row.llm_provider === 'openai' ||
      row.llm_provider === 'ollama' ||
      row.llm_provider === 'lmstudio'
        ? row.llm_provider
        : undefined;
    return {
      ...spec,
      ...(provider && !spec.provider && { provider }),
      ...(row.model && !spec.model && { model: row.model }),
    };
  } finally {
    store.close();
  }
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
