/**
 * Gemini CLI sessions (`~/.gemini/tmp/<project hash>/chats/session-*.json`, one JSON
 * document the CLI rewrites as the chat grows; see gemini-cli's chatRecordingService):
 * `{sessionId, projectHash, startTime, lastUpdated, summary?, messages: [...]}`.
 *
 * - `type: "user"` → a user message (`content` is a string or a list of parts).
 * - `type: "gemini"` → its `thoughts` (subject + description) as one history-only reasoning
 *   message, then an assistant message (one LLM call; `tokens` → usage: `input` includes
 *   `cached`, `thoughts` are billed as output) whose `toolCalls` become tool calls, each
 *   answered by one tool message from its `result` (functionResponse output or error;
 *   status error/cancelled → a failed tool execution).
 * - `info`, `error`, `warning` → UI notices, not model context: counted as ignored.
 * - `summary` (written by newer CLIs) is the session's title.
 *
 * Keys: `gemini:<message id>`, `gemini:<message id>/thoughts`, `gemini:<message id>/tool:<call id>`.
 */
import path from 'node:path';
import type { ToolCall } from '../../shared/task-types';
import { readJsonDocument } from './json-document';
import type { SessionEvent, SessionFormat, SessionMessage } from './session-format';
import { realRequest } from './session-meta';
import { REASONING_NAME } from './types';
import {
  argumentsString,
  asNumber,
  asString,
  contentText,
  isRecord,
  normalizeTimestamp,
} from './text';

const MESSAGE_TYPES = new Set(['user', 'gemini', 'info', 'error', 'warning']);

export function isGeminiCliDocument(doc: unknown): boolean {
  if (!isRecord(doc) || !Array.isArray(doc.messages)) return false;
  if (typeof doc.sessionId !== 'string' && typeof doc.projectHash !== 'string') return false;
  return doc.messages.every((m) => isRecord(m) && MESSAGE_TYPES.has(String(m.type)));
}

export const geminiCliFormat: SessionFormat = {
  agent: 'gemini-cli',
  input: 'document',
  sniff: (doc) => isGeminiCliDocument(doc),
  async *parse(file, doc, options) {
    const d = doc ?? (await readJsonDocument(file, options?.maxJsonBytes));
    yield* geminiEvents(file, d);
  },
};

function* geminiEvents(file: string, doc: unknown): Generator<SessionEvent> {
  if (!isRecord(doc) || !Array.isArray(doc.messages)) {
    yield { kind: 'skip', key: 'document', where: 'document', reason: 'no messages list' };
    return;
  }
  const messages = doc.messages;
  const firstUser = messages.find(
    (m) => isRecord(m) && m.type === 'user' && realRequest(contentText(m.content)),
  );
  const model = messages.map((m) => (isRecord(m) ? asString(m.model) : undefined)).find(Boolean);
  yield {
    kind: 'session',
    key: asString(doc.sessionId) ?? path.basename(file),
    meta: {
      agent: 'gemini-cli',
      ...(typeof doc.sessionId === 'string' && { sessionId: doc.sessionId }),
      ...(typeof doc.summary === 'string' && doc.summary.trim() !== '' && { title: doc.summary }),
      ...(isRecord(firstUser) && { firstRequest: realRequest(contentText(firstUser.content))! }),
      ...(model !== undefined && { model }),
      ...(typeof doc.startTime === 'string' && { startedAt: doc.startTime }),
      ...(typeof doc.lastUpdated === 'string' && { updatedAt: doc.lastUpdated }),
      extra: { project_hash: asString(doc.projectHash) ?? null },
    },
  };
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const key = isRecord(m) && typeof m.id === 'string' ? `gemini:${m.id}` : `m${i}`;
    if (!isRecord(m)) {
      yield { kind: 'skip', key, where: `message ${i + 1}`, reason: 'not an object' };
      continue;
    }
    const timestamp = normalizeTimestamp(m.timestamp);
    const at = timestamp !== undefined ? { timestamp } : {};
    if (m.type === 'user') {
      yield {
        kind: 'message',
        key,
        message: { role: 'user', content: contentText(m.content), ...at },
      };
    } else if (m.type === 'gemini') {
      yield* geminiReply(m, key, i, at);
    } else if (typeof m.type === 'string' && MESSAGE_TYPES.has(m.type)) {
      yield { kind: 'ignore', key, what: `gemini ${m.type} notice` };
    } else {
      yield {
        kind: 'skip',
        key,
        where: `message ${i + 1}`,
        reason: `unknown message type ${JSON.stringify(m.type)}`,
      };
    }
  }
}

function* geminiReply(
  m: Record<string, unknown>,
  key: string,
  i: number,
  at: { timestamp?: string },
): Generator<SessionEvent> {
  const thoughts = Array.isArray(m.thoughts) ? m.thoughts.filter(isRecord) : [];
  if (thoughts.length > 0) {
    const text = thoughts
      .map((t) =>
        [asString(t.subject) && `**${asString(t.subject)}**`, asString(t.description)]
          .filter(Boolean)
          .join('\n'),
      )
      .join('\n\n');
    yield {
      kind: 'message',
      key: `${key}/thoughts`,
      message: { role: 'assistant', content: text, name: REASONING_NAME, historyOnly: true, ...at },
    };
  }
  const calls = Array.isArray(m.toolCalls) ? m.toolCalls : [];
  const toolCalls: ToolCall[] = [];
  const results: { key: string; message: SessionMessage }[] = [];
  calls.forEach((c, j) => {
    if (!isRecord(c) || typeof c.name !== 'string') return;
    const id = asString(c.id) ?? `${key}-call-${j + 1}`;
    toolCalls.push({
      id,
      type: 'function',
      function: { name: c.name, arguments: argumentsString(c.args) },
    });
    const status = asString(c.status);
    const output = toolOutput(c.result) ?? asString(c.resultDisplay) ?? null;
    const when = normalizeTimestamp(c.timestamp);
    results.push({
      key: `${key}/tool:${id}`,
      message: {
        role: 'tool',
        content: output,
        tool_call_id: id,
        tool_name: c.name,
        isError: status === 'error' || status === 'cancelled',
        ...(when !== undefined ? { timestamp: when } : at),
      },
    });
  });
  const dropped = calls.length - toolCalls.length;
  for (let j = 0; j < dropped; j++)
    yield {
      kind: 'skip',
      key: `${key}/call`,
      where: `message ${i + 1}`,
      reason: 'tool call without a name',
    };
  const tokens = isRecord(m.tokens) ? m.tokens : undefined;
  const cached = asNumber(tokens?.cached);
  yield {
    kind: 'message',
    key,
    message: {
      role: 'assistant',
      content: contentText(m.content),
      ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
      ...at,
    },
    llmCall: true,
    ...(typeof m.model === 'string' && { model: m.model }),
    ...(tokens && {
      usage: {
        input_tokens: Math.max(0, asNumber(tokens.input) - cached),
        cache_read_tokens: cached,
        cache_creation_tokens: 0,
        output_tokens: asNumber(tokens.output) + asNumber(tokens.thoughts),
        total_tokens: asNumber(tokens.input) + asNumber(tokens.output) + asNumber(tokens.thoughts),
      },
    }),
  };
  for (const r of results) yield { kind: 'message', ...r };
}

/** `result` is a list of parts with functionResponse.response {output | error}, or text. */
function toolOutput(result: unknown): string | undefined {
  if (typeof result === 'string') return result;
  if (!Array.isArray(result)) return undefined;
  const texts: string[] = [];
  for (const part of result) {
    if (!isRecord(part)) continue;
    const fr = isRecord(part.functionResponse) ? part.functionResponse : undefined;
    const response = fr && isRecord(fr.response) ? fr.response : undefined;
    if (response) {
      const out = response.output ?? response.error ?? response.content;
      texts.push(typeof out === 'string' ? out : JSON.stringify(out ?? response));
    } else if (typeof part.text === 'string') texts.push(part.text);
  }
  return texts.length > 0 ? texts.join('\n') : undefined;
}
