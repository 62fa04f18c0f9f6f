import path from 'node:path';
import type { TaskContextManager } from '../store/task-context-manager';
import type { WorkerEvent } from '../../shared/worker-protocol';
import type { ToolCall } from '../../shared/task-types';
import type {
  AgentOutcome,
  ChatClient,
  ChatResponse,
  CompactionReason,
  Compactor,
  ControlState,
  ToolRunner,
  ToolSpec,
} from './agent-types';
import { repairDanglingToolCalls } from './dangling-tool-calls';
import { labelDiskFull } from './disk-full';
import { REQUEST_FILE_NAME } from '../llm/llm-client';

export interface AgentLoopOptions {
  task: TaskContextManager;
  client: ChatClient;
  tools: readonly ToolSpec[];
  runTool: ToolRunner;
  compactor?: Compactor;
  control: ControlState;
  maxTurns: number;
  contextWindow: number;
  emit: (event: WorkerEvent) => void;
}

/**
 * The agent loop of seed 000 §6: call the model on current.jsonl, record its reply, run
 * the tools it asked for, record their results, check compaction after the call and after
 * the tools, until the model answers without tool calls. A step (one call and its tools)
 * is the unit of pause: pause and compaction requests are honoured between steps; a stop
 * cancels what is in flight. Nothing of the conversation is held here: every message goes
 * to the task's files as soon as it exists.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentOutcome> {
  const { task, control, maxTurns } = options;
  repairDanglingToolCalls(task, 'interrupted before it finished');
  let turns = task.row().llm_call_count;
  for (;;) {
    if (control.stopSignal.aborted) return { kind: 'stopped', turns };
    if (control.pauseRequested()) return { kind: 'paused', turns };
    if (control.compactRequested()) {
      control.clearCompactRequest();
      await compact(options, 'requested');
    }
    if (turns >= maxTurns) return { kind: 'max-turns', turns };
    const ending = await runStep(options, turns);
    if (ending !== 'next') return ending;
    turns++;
  }
}

/**
 * One step: the model call, its reply recorded, the tools it asked for run and recorded.
 * A function of its own so that the reply, up to thousands of parsed tool calls, is
 * garbage once the step ends: a suspended async function keeps its locals alive, and the
 * loop above waits through the next call (request.json extended and sent, issue #17).
 */
async function runStep(
  options: AgentLoopOptions,
  turnsBefore: number,
): Promise<AgentOutcome | 'next'> {
  const { task, control } = options;
  const response = await callModel(options);
  if (response === undefined) return { kind: 'stopped', turns: turnsBefore };
  const turns = turnsBefore + 1;
  const assistant = task.addMessage({
    role: 'assistant',
    content: response.content,
    ...(response.tool_calls?.length && { tool_calls: response.tool_calls }),
    ...(response.usage && { usage: response.usage }),
  });
  task.recordLlmCall(response.usage);
  options.emit({
    type: 'message-appended',
    uuid: task.uuid,
    seq: assistant.seq,
    role: 'assistant',
    tokens: assistant.tokens,
  });
  emitStats(options, turns);

  const calls = response.tool_calls ?? [];
  if (calls.length === 0) {
    await compact(options, 'after-llm');
    await compact(options, 'final');
    return { kind: 'completed', turns };
  }
  // With tool calls pending, the check after the call waits until their results are in:
  // compacting between a call and its results would answer the call twice.
  await runTools(options, calls);
  emitStats(options, turns);
  if (control.stopSignal.aborted) return { kind: 'stopped', turns };
  await compact(options, 'after-tools');
  return 'next';
}

/** One model call; a context-length answer gets one forced compaction and one retry. */
async function callModel(options: AgentLoopOptions): Promise<ChatResponse | undefined> {
  const { task, client, tools, control } = options;
  const request = {
    currentPath: task.messages.currentPath,
    workDir: task.dir,
    tools,
    signal: control.stopSignal,
  };
  const chat = async (): Promise<ChatResponse> => {
    try {
      return await client.chat(request);
    } catch (err) {
      // The only file a call writes is its request body: a full disk there names it.
      labelDiskFull(err, path.join(task.dir, REQUEST_FILE_NAME));
      throw err;
    }
  };
  try {
    return await chat();
  } catch (err) {
    if (control.stopSignal.aborted) return undefined;
    if (!isContextLengthError(err) || !options.compactor) throw err;
    const result = await compact(options, 'context-length');
    if (!result.compacted) throw err;
    return await chat();
  }
}

async function runTools(options: AgentLoopOptions, calls: ToolCall[]): Promise<void> {
  const { task, control } = options;
  for (const call of calls) {
    // Not performance.now(): the `performance` global loads node:perf_hooks on first use,
    // memory a task process has no other use for (issue #17).
    const started = process.hrtime.bigint();
    const outcome = control.stopSignal.aborted
      ? { content: 'Not run: the task was stopped.', status: 'error' as const, error: 'stopped' }
      : await options.runTool(call.function.name, call.function.arguments, control.stopSignal);
    const message = task.addMessage({
      role: 'tool',
      content: outcome.content,
      tool_call_id: call.id,
      tool_name: call.function.name,
    });
    // The output is written once, in messages.jsonl; tools.jsonl refers to that message.
    task.recordToolCall({
      tool: call.function.name,
      args: parseArguments(call.function.arguments),
      result: outcome.status === 'success' ? outcome.content : null,
      ...(outcome.status === 'success' && { result_seq: message.seq }),
      status: outcome.status,
      error: outcome.error ?? (outcome.status === 'error' ? outcome.content : null),
      duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
      tool_call_id: call.id,
    });
    options.emit({
      type: 'message-appended',
      uuid: task.uuid,
      seq: message.seq,
      role: 'tool',
      tokens: message.tokens,
    });
  }
}

async function compact(
  options: AgentLoopOptions,
  reason: CompactionReason,
): Promise<{ compacted: boolean; tokensBefore: number; tokensAfter: number }> {
  if (!options.compactor) return { compacted: false, tokensBefore: 0, tokensAfter: 0 };
  const { task } = options;
  const result = await options.compactor.maybeCompact(reason);
  if (result.compacted) {
    options.emit({
      type: 'compaction-finished',
      uuid: task.uuid,
      tokensBefore: result.tokensBefore,
      tokensAfter: result.tokensAfter,
    });
  }
  return result;
}

function emitStats(options: AgentLoopOptions, turns: number): void {
  const row = options.task.row();
  options.emit({
    type: 'stats',
    uuid: row.uuid,
    progress: {
      turns,
      maxTurns: options.maxTurns,
      llmCalls: row.llm_call_count,
      toolCalls: row.tool_call_count,
      totalTokens: row.total_tokens,
      contextTokens: options.task.messages.currentTokenCount(),
      contextWindow: options.contextWindow,
    },
  });
}

/** Tool arguments as recorded in tools.jsonl: the parsed object, or the raw text when it is not JSON. */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isContextLengthError(err: unknown): boolean {
  return (
    typeof err === 'object' && err !== null && (err as { kind?: unknown }).kind === 'context_length'
  );
}
