/**
 * GitHub Copilot CLI sessions (`~/.copilot/session-state/<session id>/events.jsonl`): one
 * session event per line, `{type, data, id, parentId, timestamp, agentId?}`, as the
 * Copilot SDK defines them (github/copilot-sdk, nodejs/src/generated/session-events.ts;
 * events marked `ephemeral` — deltas, `assistant.usage`, `session.title_changed` — are
 * never written to the file).
 *
 * - `session.start` / `session.resume`: the session id, working directory, git branch and
 *   repository (`context`), the selected model; `session.model_change` → the model.
 * - `system.message` → the system prompt (a system message); `user.message` → a user
 *   message; `system.notification` → the user message the runtime sends the model.
 * - `assistant.reasoning` (or, without one, the message's `reasoningText`) → a history-only
 *   reasoning message; `assistant.message` → one LLM call (its `outputTokens` the output
 *   usage) whose `toolRequests` are tool calls; `tool.execution_complete` → the tool message
 *   answering `toolCallId` (`result.content`, else `error.message`; `success: false` failed).
 * - `session.compaction_complete` → the agent's own compaction record (agent-compaction.ts):
 *   its `summaryContent` the new context, `preCompactionTokens` the agent's count before,
 *   `compactionTokensUsed` the compaction's own model call; a failed one is ignored.
 *   A response split at its reasoning boundaries (`chunkIndex` of `chunkCount`, newer
 *   releases) is one message per part and one LLM call, counted with its last part.
 * - `session.shutdown`: the input and cache tokens of that run (output is counted per
 *   message), per agent where `agentMetrics` breaks them down (a sub-agent's on its task),
 *   else `modelMetrics`, all the session's.
 * - A sub-agent runs inside the session and writes its events into the same file: those
 *   carrying its `agentId` (the SDK's "sub-agent instance identifier"), or the deprecated
 *   `parentToolCallId` on the data. They form a thread of their own (a sub-agent task
 *   under the session's, as Claude Code's sidechains), keyed by the tool call that
 *   started it (`subagent.started` names it, `toolCallId`, and the agent's `agentId`).
 *   The thread opens with what it was asked: the `prompt` of that call (the `task` tool's
 *   arguments), titled by the call's `description`. The call's result in the session is
 *   the sub-agent's answer. `subagent.started` / `completed` / `failed` are bookkeeping of
 *   the session, counted as ignored by type like every other event type the model never
 *   reads (turn boundaries, hooks, permissions, plan and mode changes, notices).
 */
import path from 'node:path';
import type { ToolCall } from '../../shared/task-types';
import type { JsonlSessionAgent, LineEvent } from './jsonl-session';
import { jsonlSessionFormat } from './jsonl-session';
import type { CompactionInput } from './agent-compaction';
import { realRequest } from './session-meta';
import { REASONING_NAME } from './types';
import { argumentsString, asNumber, asString, contentText, isRecord } from './text';

/** A call of the session that may start a sub-agent: what it asked (kept until answered). */
interface AskedCall {
  description?: string;
  prompt?: string;
}

interface CopilotState {
  /** An `assistant.reasoning` event was read since the last reply (its text not repeated). */
  reasoned?: boolean;
  /** Per thread (sub-agents by key): the same, each thread reasons on its own. */
  reasonedIn?: string[];
  /** The session's calls that carry a `prompt` (a `task` call), by tool call id. */
  asked?: Record<string, AskedCall>;
  /** Sub-agent instance id → the tool call that started it. */
  agents?: Record<string, string>;
  /** Sub-agents running, by the tool call that started them: their start time. */
  started?: Record<string, string>;
  /** The tool calls whose sub-agent's thread began (its prompt written). */
  opened?: string[];
}

/** The thread key of the sub-agent started by a tool call. */
const subagentThread = (toolCallId: string): string => `subagent:${toolCallId}`;

function copilotLine(value: unknown, lineNo: number, state: CopilotState): LineEvent[] {
  const key = `L${lineNo}`;
  const where = `line ${lineNo}`;
  if (!isRecord(value) || typeof value.type !== 'string')
    return [{ kind: 'skip', key, where, reason: 'not a session event' }];
  const data = isRecord(value.data) ? value.data : {};
  if (value.type.startsWith('subagent.')) return [subagentEvent(value, data, key, state)];
  const call = subagentOf(value, data, state);
  if (call === undefined) return sessionLine(value, data, key, state);
  const thread = subagentThread(call);
  const events: LineEvent[] = [];
  if (state.opened?.includes(call) !== true) events.push(...openThread(call, value, key, state));
  const reasoned = state.reasonedIn?.includes(thread) === true;
  const own: CopilotState = { reasoned };
  for (const e of sessionLine(value, data, key, own))
    events.push(e.kind === 'skip' || e.kind === 'ignore' ? e : { ...e, thread });
  const others = (state.reasonedIn ?? []).filter((t) => t !== thread);
  state.reasonedIn = own.reasoned === true ? [...others, thread] : others;
  return events;
}

/** The tool call whose sub-agent wrote this event, if a sub-agent did. */
function subagentOf(
  value: Record<string, unknown>,
  data: Record<string, unknown>,
  state: CopilotState,
): string | undefined {
  const agentId = asString(value.agentId);
  const parentCall = asString(data.parentToolCallId);
  if (parentCall !== undefined) {
    if (agentId !== undefined) (state.agents ??= {})[agentId] = parentCall;
    return parentCall;
  }
  if (agentId === undefined) return undefined;
  const known = state.agents?.[agentId];
  if (known !== undefined) return known;
  // An id never named by its start: the one sub-agent running, else a thread of its own.
  const running = Object.keys(state.started ?? {});
  const call = running.length === 1 ? running[0]! : agentId;
  (state.agents ??= {})[agentId] = call;
  return call;
}

/** `subagent.*`: which agent instance runs for which call; the events themselves are ignored. */
function subagentEvent(
  value: Record<string, unknown>,
  data: Record<string, unknown>,
  key: string,
  state: CopilotState,
): LineEvent {
  const call = asString(data.toolCallId);
  const agentId = asString(value.agentId);
  if (call !== undefined && value.type === 'subagent.started') {
    if (agentId !== undefined) (state.agents ??= {})[agentId] = call;
    (state.started ??= {})[call] ??= asString(value.timestamp) ?? '';
  } else if (call !== undefined && state.started) delete state.started[call];
  return { kind: 'ignore', key, what: `copilot ${value.type as string}` };
}

/**
 * A sub-agent's first event: its metadata (what it was asked and by which description) and,
 * unless the sub-agent's own events begin with it, the prompt as its first user message.
 */
function openThread(
  call: string,
  value: Record<string, unknown>,
  key: string,
  state: CopilotState,
): LineEvent[] {
  const thread = subagentThread(call);
  const startedAt = state.started?.[call];
  (state.opened ??= []).push(call);
  const asked = state.asked?.[call] ?? {};
  const events: LineEvent[] = [];
  const request = asked.prompt !== undefined ? realRequest(asked.prompt) : undefined;
  events.push({
    kind: 'meta',
    thread,
    meta: {
      ...(asked.description !== undefined && { description: asked.description }),
      ...(request !== undefined && { firstRequest: request }),
    },
  });
  if (asked.prompt !== undefined && value.type !== 'user.message') {
    const timestamp = startedAt || asString(value.timestamp);
    events.push({
      kind: 'message',
      key: `${key}/prompt`,
      thread,
      message: {
        role: 'user',
        content: asked.prompt,
        ...(timestamp !== undefined && { timestamp }),
      },
    });
  }
  return events;
}

function sessionLine(
  value: Record<string, unknown>,
  data: Record<string, unknown>,
  key: string,
  state: CopilotState,
): LineEvent[] {
  const timestamp = asString(value.timestamp);
  const at = timestamp !== undefined ? { timestamp } : {};
  const type = value.type as string;
  switch (type) {
    case 'session.start':
    case 'session.resume':
      return [sessionMeta(data)];
    case 'session.model_change': {
      const model = asString(data.newModel);
      return model !== undefined ? [{ kind: 'meta', meta: { model } }] : [];
    }
    case 'system.message':
      // The system prompt stays in the context whatever the agent compacts.
      return [
        {
          kind: 'message',
          key,
          message: { role: 'system', content: contentText(data.content), ...at },
          pinned: true,
        },
      ];
    case 'system.notification':
      return [
        {
          kind: 'message',
          key,
          message: { role: 'user', content: asString(data.content) ?? JSON.stringify(data), ...at },
        },
      ];
    case 'user.message': {
      const content = contentText(data.content);
      const request = realRequest(content);
      return [
        ...(request !== undefined
          ? [{ kind: 'meta' as const, meta: { firstRequest: request } }]
          : []),
        { kind: 'message', key, message: { role: 'user', content, ...at } },
      ];
    }
    case 'assistant.reasoning': {
      state.reasoned = true;
      return [reasoning(key, asString(data.content) ?? '', at)];
    }
    case 'assistant.message':
      rememberAsked(data, state);
      return copilotReply(data, key, at, state);
    case 'tool.execution_complete':
      if (typeof data.toolCallId === 'string') finishAsked(data.toolCallId, state);
      return [toolResult(data, key, at)];
    case 'session.compaction_complete':
      return data.success === true
        ? [{ kind: 'compaction', key, compaction: copilotCompaction(data, timestamp) }]
        : [{ kind: 'ignore', key, what: 'copilot compaction that failed' }];
    case 'session.shutdown':
      return shutdownUsage(data, key, state);
    default:
      return [{ kind: 'ignore', key, what: `copilot ${type}` }];
  }
}

/** The calls of a reply that may start a sub-agent (they carry a prompt): what they asked. */
function rememberAsked(data: Record<string, unknown>, state: CopilotState): void {
  const requests = Array.isArray(data.toolRequests) ? data.toolRequests.filter(isRecord) : [];
  for (const r of requests) {
    const args = isRecord(r.arguments) ? r.arguments : parsedArguments(r.arguments);
    const id = asString(r.toolCallId);
    const prompt = asString(args?.prompt);
    if (id === undefined || prompt === undefined) continue;
    const description = asString(args?.description);
    (state.asked ??= {})[id] = { prompt, ...(description !== undefined && { description }) };
  }
}

/** A call answered: its sub-agent is done, what it asked no longer needed. */
function finishAsked(call: string, state: CopilotState): void {
  if (state.asked) delete state.asked[call];
  if (state.started) delete state.started[call];
}

function parsedArguments(args: unknown): Record<string, unknown> | undefined {
  if (typeof args !== 'string') return undefined;
  try {
    const parsed = JSON.parse(args) as unknown;
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function sessionMeta(data: Record<string, unknown>): LineEvent & { kind: 'meta' } {
  const context = isRecord(data.context) ? data.context : {};
  const repository = asString(context.repository);
  const host = asString(context.repositoryHost) ?? 'github.com';
  const model = asString(data.selectedModel);
  return {
    kind: 'meta',
    meta: {
      ...(typeof data.sessionId === 'string' && { sessionId: data.sessionId }),
      ...(typeof context.cwd === 'string' && { cwd: context.cwd }),
      ...(typeof context.branch === 'string' && { gitBranch: context.branch }),
      ...(repository !== undefined && { gitRemote: `https://${host}/${repository}.git` }),
      ...(model !== undefined && model !== 'auto' && { model }),
      ...(typeof data.copilotVersion === 'string' && {
        extra: { copilot_version: data.copilotVersion },
      }),
    },
  };
}

function reasoning(key: string, text: string, at: { timestamp?: string }): LineEvent {
  return {
    kind: 'message',
    key,
    message: { role: 'assistant', content: text, name: REASONING_NAME, historyOnly: true, ...at },
  };
}

function copilotReply(
  data: Record<string, unknown>,
  key: string,
  at: { timestamp?: string },
  state: CopilotState,
): LineEvent[] {
  const events: LineEvent[] = [];
  const model = asString(data.model);
  if (model !== undefined) events.push({ kind: 'meta', meta: { model } });
  const thought = asString(data.reasoningText);
  if (!state.reasoned && thought !== undefined && thought.trim() !== '')
    events.push(reasoning(`${key}/reasoning`, thought, at));
  state.reasoned = false;
  const requests = Array.isArray(data.toolRequests) ? data.toolRequests.filter(isRecord) : [];
  const toolCalls: ToolCall[] = requests
    .filter((r) => typeof r.name === 'string')
    .map((r, i) => ({
      id: asString(r.toolCallId) ?? `${key}-call-${i + 1}`,
      type: 'function',
      function: { name: r.name as string, arguments: argumentsString(r.arguments ?? {}) },
    }));
  // A response split at its reasoning boundaries is one message per part (`chunkIndex` of
  // `chunkCount`, all written once the response is complete): one LLM call, counted with its
  // last part, which carries the call's output tokens.
  const chunks = asNumber(data.chunkCount);
  const last = typeof data.chunkIndex !== 'number' || data.chunkIndex >= chunks - 1;
  const output = last ? asNumber(data.outputTokens) : 0;
  events.push({
    kind: 'message',
    key,
    message: {
      role: 'assistant',
      content: asString(data.content) ?? null,
      ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
      ...at,
    },
    ...(last && { llmCall: true }),
    ...(output > 0 && { usage: { output_tokens: output } }),
  });
  return events;
}

function toolResult(
  data: Record<string, unknown>,
  key: string,
  at: { timestamp?: string },
): LineEvent {
  const result = isRecord(data.result) ? data.result : undefined;
  const error = isRecord(data.error) ? data.error : undefined;
  const content =
    asString(result?.content) ??
    asString(result?.detailedContent) ??
    asString(error?.message) ??
    null;
  return {
    kind: 'message',
    key,
    message: {
      role: 'tool',
      content,
      tool_call_id: asString(data.toolCallId) ?? '',
      isError: data.success !== true,
      ...at,
    },
  };
}

/**
 * The run's input and cache tokens (output was counted with each reply): per agent where
 * the shutdown breaks them down (`agentMetrics`, the session's own under `main`, each
 * sub-agent's under its instance id: on its task), else per model, all the session's.
 */
function shutdownUsage(
  data: Record<string, unknown>,
  key: string,
  state: CopilotState,
): LineEvent[] {
  const agents = isRecord(data.agentMetrics) ? Object.entries(data.agentMetrics) : [];
  const events: LineEvent[] = [];
  if (agents.length === 0) events.push(...runUsage(data.modelMetrics, key));
  for (const [agentId, metric] of agents) {
    const call = agentId === 'main' ? undefined : state.agents?.[agentId];
    if (agentId !== 'main' && (call === undefined || state.opened?.includes(call) !== true)) {
      // A sub-agent that left no event of its own: its usage stays the session's.
      events.push(...runUsage(isRecord(metric) ? metric.modelMetrics : undefined, key));
      continue;
    }
    const usage = runUsage(isRecord(metric) ? metric.modelMetrics : undefined, key);
    events.push(
      ...usage.map((e) =>
        call !== undefined && e.kind === 'usage' ? { ...e, thread: subagentThread(call) } : e,
      ),
    );
  }
  const used = events.filter((e) => e.kind === 'usage');
  return used.length > 0 ? used : [{ kind: 'ignore', key, what: 'copilot session.shutdown' }];
}

/** The input and cache tokens of `modelMetrics` (one model's usage per key), if any. */
function runUsage(modelMetrics: unknown, key: string): LineEvent[] {
  const metrics = isRecord(modelMetrics) ? Object.values(modelMetrics) : [];
  let input = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  for (const m of metrics) {
    const usage = isRecord(m) && isRecord(m.usage) ? m.usage : undefined;
    input += asNumber(usage?.inputTokens);
    cacheRead += asNumber(usage?.cacheReadTokens);
    cacheWrite += asNumber(usage?.cacheWriteTokens);
  }
  if (input + cacheRead + cacheWrite === 0) return [];
  return [
    {
      kind: 'usage',
      key,
      usage: {
        input_tokens: input,
        cache_read_tokens: cacheRead,
        cache_creation_tokens: cacheWrite,
      },
    },
  ];
}

export const copilotCliAgentFormat: JsonlSessionAgent = {
  agent: 'copilot-cli',
  sniffLine: (v) =>
    typeof v.type === 'string' &&
    /^(session|user|assistant|system|tool)\.[a-z_]+$/.test(v.type) &&
    isRecord(v.data) &&
    typeof v.id === 'string',
  converter: (saved) => {
    const state: CopilotState = isRecord(saved) ? { ...(saved as CopilotState) } : {};
    return {
      line: (value, lineNo) => copilotLine(value, lineNo, state),
      save: () => ({ ...state }),
    };
  },
  // session-state/<session id>/events.jsonl
  metaOf: (file) => ({ sessionId: path.basename(path.dirname(file)) }),
};

export const copilotCliFormat = jsonlSessionFormat(copilotCliAgentFormat);

/** A compaction Copilot CLI made: its summary is the new context the model continues from. */
function copilotCompaction(data: Record<string, unknown>, timestamp?: string): CompactionInput {
  const summary = asString(data.summaryContent) ?? '';
  const length = asNumber(data.preCompactionMessagesLength);
  const removed = asNumber(data.messagesRemoved);
  const used = isRecord(data.compactionTokensUsed) ? data.compactionTokensUsed : undefined;
  const note =
    summary === ''
      ? 'Copilot CLI recorded no summary for this compaction'
      : removed > 0 && removed < length
        ? `Copilot CLI kept ${length - removed} of its ${length} messages beside the summary; the file does not say which`
        : undefined;
  return {
    strategy: 'copilot-compact',
    summary,
    messages: [
      {
        role: 'user',
        content: summary,
        kind: 'summary',
        ...(timestamp !== undefined && { timestamp }),
      },
    ],
    ...(timestamp !== undefined && { at: timestamp }),
    ...(typeof data.preCompactionTokens === 'number' && {
      agentTokensBefore: data.preCompactionTokens,
    }),
    ...(used && {
      llmUsage: {
        input_tokens: asNumber(used.inputTokens),
        output_tokens: asNumber(used.outputTokens),
        cache_read_tokens: asNumber(used.cacheReadTokens),
        cache_creation_tokens: 0,
        total_tokens:
          asNumber(used.inputTokens) + asNumber(used.outputTokens) + asNumber(used.cacheReadTokens),
      },
    }),
    ...(used && typeof used.model === 'string' && { model: used.model }),
    extra: {
      source_format: 'copilot-cli',
      ...(typeof data.trigger === 'string' && { trigger: data.trigger }),
      ...(typeof data.postCompactionTokens === 'number' && {
        agent_tokens_after: data.postCompactionTokens,
      }),
      ...(typeof data.messagesRemoved === 'number' && { messages_removed: removed }),
      ...(typeof data.checkpointNumber === 'number' && {
        checkpoint_number: data.checkpointNumber,
      }),
      ...(note !== undefined && { note }),
    },
  };
}
