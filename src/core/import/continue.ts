/**
 * Continue sessions (`~/.continue/sessions/<session id>.json`, one JSON document the
 * extension rewrites; `sessions.json` beside them is the list): `{sessionId, title,
 * workspaceDirectory, history[], chatModelTitle?}` (continuedev/continue, core/index.d.ts
 * `Session`, `ChatHistoryItem`), each history item `{message, contextItems, toolCallStates?,
 * conversationSummary?, promptLogs?}` (`toolCallState`, one, before July 2025).
 *
 * - `user` → a user message (text parts); `system` → a system message.
 * - `thinking` → a history-only reasoning message.
 * - `assistant` → one LLM call (`usage` promptTokens, completionTokens,
 *   promptTokensDetails.cachedTokens / cacheWriteTokens) whose `toolCalls` are tool calls.
 * - `tool` → the tool message answering `toolCallId`, failed when the call's state (on the
 *   item that made the call, or on the tool message's in older sessions) is `errored` or
 *   `canceled`.
 * - An item's `conversationSummary` (Continue's compaction) → the agent's own compaction
 *   record after that item: the summary is the new context, the items after it follow.
 * - The title is the session's unless it is Continue's placeholder "New Session".
 *
 * Keys: `m<index>` (history only grows, or is cut back and grows again).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolCall } from '../../shared/task-types';
import { readJsonDocument } from './json-document';
import type { SessionEvent, SessionFormat } from './session-format';
import { realRequest } from './session-meta';
import { REASONING_NAME } from './types';
import { argumentsString, asNumber, asString, contentText, isRecord } from './text';

export function isContinueSession(doc: unknown): boolean {
  return isRecord(doc) && typeof doc.sessionId === 'string' && Array.isArray(doc.history);
}

export const continueFormat: SessionFormat = {
  agent: 'continue',
  input: 'document',
  sniff: (doc) => isContinueSession(doc),
  async *parse(file, doc, options) {
    yield* continueEvents(file, doc ?? (await readJsonDocument(file, options?.maxJsonBytes)));
  },
};

function messageOf(item: unknown): Record<string, unknown> | undefined {
  return isRecord(item) && isRecord(item.message) ? item.message : undefined;
}

function* continueEvents(file: string, doc: unknown): Generator<SessionEvent> {
  if (!isRecord(doc) || !Array.isArray(doc.history)) {
    yield { kind: 'skip', key: 'document', where: 'document', reason: 'no history list' };
    return;
  }
  const history = doc.history;
  const firstUser = history
    .map(messageOf)
    .find((m) => m?.role === 'user' && realRequest(contentText(m.content)));
  const workspace = asString(doc.workspaceDirectory);
  const cwd = workspace?.startsWith('file://') ? fileURLToPath(workspace) : workspace;
  const title = asString(doc.title);
  const model = asString(doc.chatModelTitle);
  yield {
    kind: 'session',
    key: asString(doc.sessionId) ?? path.basename(file),
    meta: {
      agent: 'continue',
      sessionId: asString(doc.sessionId)!,
      ...(title !== undefined && title.trim() !== '' && title !== 'New Session' && { title }),
      ...(firstUser && { firstRequest: realRequest(contentText(firstUser.content))! }),
      ...(cwd !== undefined && cwd !== '' && { cwd }),
      ...(model !== undefined && { model }),
      extra: { mode: asString(doc.mode) ?? null },
    },
  };
  let statuses: Map<string, string> | undefined;
  for (let i = 0; i < history.length; i++) {
    const key = `m${i}`;
    const m = messageOf(history[i]);
    if (!m) {
      yield { kind: 'skip', key, where: `history item ${i + 1}`, reason: 'no message' };
      continue;
    }
    switch (m.role) {
      case 'user':
      case 'system':
        yield { kind: 'message', key, message: { role: m.role, content: contentText(m.content) } };
        break;
      case 'thinking':
        yield {
          kind: 'message',
          key,
          message: {
            role: 'assistant',
            content: contentText(m.content),
            name: REASONING_NAME,
            historyOnly: true,
          },
        };
        break;
      case 'assistant':
        yield continueReply(m, key);
        break;
      case 'tool':
        yield continueResult(m, (statuses ??= callStatuses(history)), key);
        break;
      default:
        yield {
          kind: 'skip',
          key,
          where: `history item ${i + 1}`,
          reason: `unknown role ${JSON.stringify(m.role)}`,
        };
    }
    const summary = isRecord(history[i]) ? asString(history[i].conversationSummary) : undefined;
    if (summary !== undefined && summary.trim() !== '') yield continueCompaction(summary, key);
  }
}

/**
 * Continue's compaction (core/util/conversationCompaction.ts): the summary it wrote on a
 * history item replaces that item and everything before it; the model goes on from the
 * summary (sent as "Previous conversation summary") and the items after it.
 */
function continueCompaction(summary: string, key: string): SessionEvent {
  return {
    kind: 'compaction',
    key: `${key}/summary`,
    compaction: {
      strategy: 'continue-compact',
      summary,
      messages: [{ role: 'user', content: summary, kind: 'summary' }],
      extra: { source_format: 'continue' },
    },
  };
}

function continueReply(m: Record<string, unknown>, key: string): SessionEvent {
  const calls = Array.isArray(m.toolCalls) ? m.toolCalls.filter(isRecord) : [];
  const toolCalls: ToolCall[] = calls.flatMap((c, j) => {
    const fn = isRecord(c.function) ? c.function : undefined;
    if (typeof fn?.name !== 'string') return [];
    return [
      {
        id: asString(c.id) ?? `${key}-call-${j + 1}`,
        type: 'function' as const,
        function: { name: fn.name, arguments: argumentsString(fn.arguments ?? {}) },
      },
    ];
  });
  const usage = isRecord(m.usage) ? m.usage : undefined;
  const details = isRecord(usage?.promptTokensDetails) ? usage.promptTokensDetails : {};
  const cached = asNumber(details.cachedTokens);
  const written = asNumber(details.cacheWriteTokens);
  return {
    kind: 'message',
    key,
    message: {
      role: 'assistant',
      content: contentText(m.content),
      ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
    },
    llmCall: true,
    ...(usage && {
      usage: {
        input_tokens: Math.max(0, asNumber(usage.promptTokens) - cached - written),
        cache_read_tokens: cached,
        cache_creation_tokens: written,
        output_tokens: asNumber(usage.completionTokens),
      },
    }),
  };
}

/**
 * Each call's status by its id. Continue keeps a call's state on the item whose message made
 * the call (`toolCallStates`, since July 2025); before, on the tool message's item
 * (`toolCallState`, one).
 */
function callStatuses(history: unknown[]): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const item of history) {
    if (!isRecord(item)) continue;
    const states = [
      item.toolCallState,
      ...(Array.isArray(item.toolCallStates) ? item.toolCallStates : []),
    ];
    for (const state of states) {
      const id = isRecord(state) ? asString(state.toolCallId) : undefined;
      const status = isRecord(state) ? asString(state.status) : undefined;
      if (id !== undefined && status !== undefined) statuses.set(id, status);
    }
  }
  return statuses;
}

function continueResult(
  m: Record<string, unknown>,
  statuses: Map<string, string>,
  key: string,
): SessionEvent {
  const id = asString(m.toolCallId) ?? '';
  const status = statuses.get(id);
  return {
    kind: 'message',
    key,
    message: {
      role: 'tool',
      content: contentText(m.content),
      tool_call_id: id,
      isError: status === 'errored' || status === 'canceled',
    },
  };
}
