/**
 * Qwen Code chats (`~/.qwen/projects/<project>/chats/<session id>.jsonl`, older releases
 * `~/.qwen/tmp/<project hash>/chats/`): one ChatRecord per line, appended
 * (QwenLM/qwen-code, packages/core/src/services/chatRecordingService.ts):
 * `{uuid, parentUuid, sessionId, timestamp, type, subtype?, cwd, version, gitBranch?,
 * message?: {role, parts}, usageMetadata?, model?, toolCallResult?, systemPayload?}`.
 *
 * - `user` → a user message (the text parts; `cron` / `notification` ones too: the model
 *   reads them).
 * - `assistant` → its thought parts as one history-only reasoning message, then the reply
 *   (one LLM call; `usageMetadata` promptTokenCount includes cachedContentTokenCount,
 *   thoughts are billed as output; the older `{input, output, cached, thoughts}` too) whose
 *   `functionCall` parts are tool calls.
 * - `tool_result` → one tool message per `functionResponse` part (its `response.output`,
 *   else `response.error`; an error, or `toolCallResult.status` error, fails the call).
 * - A record of a sub-agent (`isSidechain`, `agentId`, `agentName`: a sidechain off the
 *   session) goes to the sub-agent's own task under the session's, titled by its name.
 * - `system`: `parent_session` → the session that spawned this one (a sub-agent task
 *   under it); `custom_title` → the title (the last one wins); `chat_compression` → the
 *   agent's own compaction record, its `compressedHistory` (the summary first) the new
 *   context and `info.originalTokenCount` the agent's count before;
 *   `slash_command`, `at_command`, `ui_telemetry` and others → UI state, counted as ignored.
 */
import path from 'node:path';
import type { ToolCall, TokenUsage } from '../../shared/task-types';
import type { JsonlSessionAgent, LineEvent } from './jsonl-session';
import { jsonlSessionFormat } from './jsonl-session';
import type { NewMessage } from '../store/message-store';
import type { CompactionInput } from './agent-compaction';
import { realRequest } from './session-meta';
import { REASONING_NAME } from './types';
import { argumentsString, asNumber, asString, isRecord } from './text';

interface QwenState {
  /** Call ids given to function calls that had none, by tool name, for their responses. */
  unnamed?: Record<string, string[]>;
}

function parts(record: Record<string, unknown>): Record<string, unknown>[] {
  const message = isRecord(record.message) ? record.message : undefined;
  return Array.isArray(message?.parts) ? message.parts.filter(isRecord) : [];
}

function text(list: Record<string, unknown>[], thought: boolean): string {
  return list
    .filter((p) => typeof p.text === 'string' && (p.thought === true) === thought)
    .map((p) => p.text as string)
    .join('');
}

function qwenLine(value: unknown, lineNo: number, state: QwenState): LineEvent[] {
  const events = recordEvents(value, lineNo, state);
  if (!isRecord(value) || (value.isSidechain !== true && typeof value.agentId !== 'string'))
    return events;
  // A sub-agent's record (a sidechain off the session): the sub-agent's own task.
  const thread = `subagent:${asString(value.agentId) ?? 'sidechain'}`;
  const name = asString(value.agentName);
  return [
    ...(name !== undefined ? [{ kind: 'meta' as const, thread, meta: { description: name } }] : []),
    ...events.map((e) => (e.kind === 'skip' || e.kind === 'ignore' ? e : { ...e, thread })),
  ];
}

function recordEvents(value: unknown, lineNo: number, state: QwenState): LineEvent[] {
  const key = `L${lineNo}`;
  const where = `line ${lineNo}`;
  if (!isRecord(value) || typeof value.type !== 'string')
    return [{ kind: 'skip', key, where, reason: 'not a chat record' }];
  const timestamp = asString(value.timestamp);
  const at = timestamp !== undefined ? { timestamp } : {};
  const events: LineEvent[] = [
    {
      kind: 'meta',
      meta: {
        ...(typeof value.sessionId === 'string' && { sessionId: value.sessionId }),
        ...(typeof value.cwd === 'string' && { cwd: value.cwd }),
        ...(typeof value.gitBranch === 'string' && { gitBranch: value.gitBranch }),
        ...(typeof value.version === 'string' && { extra: { qwen_version: value.version } }),
      },
    },
  ];
  switch (value.type) {
    case 'user': {
      const content = text(parts(value), false);
      const request = value.subtype === undefined ? realRequest(content) : undefined;
      if (request !== undefined) events.push({ kind: 'meta', meta: { firstRequest: request } });
      events.push({ kind: 'message', key, message: { role: 'user', content, ...at } });
      return events;
    }
    case 'assistant':
      return [...events, ...qwenReply(value, key, at, state)];
    case 'tool_result':
      return [...events, ...qwenResults(value, key, at, state)];
    case 'system':
      return [...events, qwenSystem(value, key, at)];
    default:
      return [
        { kind: 'skip', key, where, reason: `unknown record type ${JSON.stringify(value.type)}` },
      ];
  }
}

function qwenReply(
  record: Record<string, unknown>,
  key: string,
  at: { timestamp?: string },
  state: QwenState,
): LineEvent[] {
  const events: LineEvent[] = [];
  const model = asString(record.model);
  if (model !== undefined) events.push({ kind: 'meta', meta: { model } });
  const list = parts(record);
  const thought = text(list, true);
  if (thought.trim() !== '')
    events.push({
      kind: 'message',
      key: `${key}/thought`,
      message: {
        role: 'assistant',
        content: thought,
        name: REASONING_NAME,
        historyOnly: true,
        ...at,
      },
    });
  const toolCalls: ToolCall[] = [];
  for (const p of list) {
    const call = isRecord(p.functionCall) ? p.functionCall : undefined;
    if (!call || typeof call.name !== 'string') continue;
    let id = asString(call.id);
    if (id === undefined) {
      id = `${key}-call-${toolCalls.length + 1}`;
      ((state.unnamed ??= {})[call.name] ??= []).push(id);
    }
    toolCalls.push({
      id,
      type: 'function',
      function: { name: call.name, arguments: argumentsString(call.args ?? {}) },
    });
  }
  const usage = qwenUsage(record.usageMetadata);
  events.push({
    kind: 'message',
    key,
    message: {
      role: 'assistant',
      content: text(list, false),
      ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
      ...at,
    },
    llmCall: true,
    ...(usage && { usage }),
  });
  return events;
}

/** Gemini's usage metadata (or the older summary): prompt includes cached, thoughts are output. */
function qwenUsage(u: unknown): Partial<TokenUsage> | undefined {
  if (!isRecord(u)) return undefined;
  const prompt = asNumber(u.promptTokenCount ?? u.input);
  const cached = asNumber(u.cachedContentTokenCount ?? u.cached);
  const output =
    asNumber(u.candidatesTokenCount ?? u.output) + asNumber(u.thoughtsTokenCount ?? u.thoughts);
  return {
    input_tokens: Math.max(0, prompt - cached),
    cache_read_tokens: cached,
    cache_creation_tokens: 0,
    output_tokens: output,
    total_tokens: asNumber(u.totalTokenCount ?? u.total) || prompt + output,
  };
}

function qwenResults(
  record: Record<string, unknown>,
  key: string,
  at: { timestamp?: string },
  state: QwenState,
): LineEvent[] {
  const info = isRecord(record.toolCallResult) ? record.toolCallResult : {};
  const responses = parts(record)
    .map((p) => (isRecord(p.functionResponse) ? p.functionResponse : undefined))
    .filter((r): r is Record<string, unknown> => r !== undefined);
  if (responses.length === 0)
    return [
      {
        kind: 'skip',
        key,
        where: key.replace('L', 'line '),
        reason: 'tool result without a functionResponse',
      },
    ];
  return responses.map((r, i): LineEvent => {
    const name = asString(r.name);
    const id =
      asString(r.id) ??
      (name !== undefined ? state.unnamed?.[name]?.shift() : undefined) ??
      asString(info.callId) ??
      '';
    const response = isRecord(r.response) ? r.response : {};
    const out = response.output ?? response.error ?? response.content ?? r.response;
    const failed =
      response.error !== undefined || info.status === 'error' || info.error !== undefined;
    return {
      kind: 'message',
      key: responses.length > 1 ? `${key}/${i}` : key,
      message: {
        role: 'tool',
        content: typeof out === 'string' ? out : JSON.stringify(out ?? null),
        tool_call_id: id,
        ...(name !== undefined && { tool_name: name }),
        isError: failed,
        ...at,
      },
    };
  });
}

function qwenSystem(
  record: Record<string, unknown>,
  key: string,
  at: { timestamp?: string },
): LineEvent {
  const payload = isRecord(record.systemPayload) ? record.systemPayload : {};
  const subtype = asString(record.subtype) ?? 'system';
  if (subtype === 'custom_title') {
    const title = asString(payload.customTitle);
    if (title !== undefined && title.trim() !== '') return { kind: 'meta', meta: { title } };
  }
  // A session another one spawned (`create_sub_session`): a sub-agent task under it.
  if (subtype === 'parent_session') {
    const parentSessionId = asString(payload.parentSessionId);
    if (parentSessionId !== undefined) return { kind: 'meta', meta: { parentSessionId } };
  }
  if (subtype === 'chat_compression' && Array.isArray(payload.compressedHistory))
    return { kind: 'compaction', key, compaction: qwenCompaction(payload, at) };
  return { kind: 'ignore', key, what: `qwen ${subtype}` };
}

/**
 * Qwen Code's compression (Gemini CLI's): the history it continues from is the
 * `<state_snapshot>` summary, the model's acknowledgement and the turns it kept.
 */
function qwenCompaction(
  payload: Record<string, unknown>,
  at: { timestamp?: string },
): CompactionInput {
  const history = (payload.compressedHistory as unknown[]).filter(isRecord);
  const info = isRecord(payload.info) ? payload.info : {};
  let summary = '';
  const messages: NewMessage[] = history.map((entry, i) => {
    const content = text(parts({ message: entry }), false);
    const isSummary = i === 0 && entry.role === 'user';
    if (isSummary) summary = content;
    return {
      role: entry.role === 'model' ? 'assistant' : 'user',
      content,
      ...(isSummary && { kind: 'summary' as const }),
      ...at,
    };
  });
  return {
    strategy: 'qwen-compress',
    summary,
    messages,
    ...(at.timestamp !== undefined && { at: at.timestamp }),
    ...(typeof info.originalTokenCount === 'number' && {
      agentTokensBefore: info.originalTokenCount,
    }),
    extra: {
      source_format: 'qwen-code',
      kept_messages: Math.max(0, history.length - 2),
      ...(typeof info.newTokenCount === 'number' && { agent_tokens_after: info.newTokenCount }),
      ...(summary.trim() === '' && { note: 'Qwen Code recorded no summary for this compression' }),
    },
  };
}

export const qwenCodeAgentFormat: JsonlSessionAgent = {
  agent: 'qwen-code',
  sniffLine: (v) =>
    typeof v.uuid === 'string' &&
    typeof v.sessionId === 'string' &&
    ((isRecord(v.message) && Array.isArray(v.message.parts)) ||
      (v.type === 'system' && 'systemPayload' in v) ||
      v.type === 'tool_result'),
  converter: (saved) => {
    const state: QwenState = isRecord(saved) ? (structuredClone(saved) as QwenState) : {};
    return {
      line: (value, lineNo) => qwenLine(value, lineNo, state),
      save: () => structuredClone(state),
    };
  },
  metaOf: (file) => ({ sessionId: path.basename(file, '.jsonl') }),
};

export const qwenCodeFormat = jsonlSessionFormat(qwenCodeAgentFormat);
