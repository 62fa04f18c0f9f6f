/**
 * Goose sessions (block/goose `crates/goose/src/session/session_manager.rs`): the SQLite
 * store `sessions.db` in Goose's data folder, `sessions` (id `YYYYMMDD_n`, name, working_dir,
 * created_at, updated_at, token totals, session_type) and `messages` (id, session_id, role,
 * content_json: the message's content list, created_timestamp in seconds, metadata_json with
 * `agentVisible`). Goose writes each message whole once it is complete.
 *
 * - assistant → one assistant message (one LLM call): `text`, `thinking` (a history-only
 *   reasoning message before it), `toolRequest` as tool calls (`toolCall.value` {name,
 *   arguments}; a call Goose could not parse, `status: error`, is reported skipped).
 * - user → its `toolResponse` contents as tool messages (`toolResult.value`: a content list,
 *   or {content, isError}; `status: error` a failed call), then its text as a user message.
 * - a message not visible to the agent (`agentVisible: false`, kept after Goose summarized
 *   the conversation) is history-only; notices (`systemNotification`, confirmations) are ignored.
 *
 * Keys: `goose:<created second>:<hash of the content>` (and `/n` for the n-th repeat): Goose
 * rewrites a conversation with new row ids when it summarizes it, so row ids are not stable.
 * Goose records tokens per session only (no per-call usage): the text is estimated.
 */
import crypto from 'node:crypto';
import type { StoreSession } from '../sources/sync-store';
import type { ToolCall } from '../../shared/task-types';
import { databaseFormat, parseJsonColumn, type ForeignDb } from './database-format';
import type { SessionEvent, SessionMessage } from './session-format';
import { REASONING_NAME } from './types';
import { argumentsString, asString, contentText, isRecord, naiveUtcTimestamp } from './text';

interface MessageRow {
  id: number;
  role: string;
  content_json: string;
  created_timestamp: number;
  metadata_json: string | null;
}

function sessions(db: ForeignDb): StoreSession[] {
  const rows = db
    .prepare(
      `SELECT s.id AS id, s.updated_at AS updated, count(m.id) AS n, coalesce(max(m.id), 0) AS last,
              coalesce(max(m.created_timestamp), 0) AS t
         FROM sessions s LEFT JOIN messages m ON m.session_id = s.id GROUP BY s.id`,
    )
    .all() as { id: string; updated: unknown; n: number; last: number; t: number }[];
  return rows.map((r) => ({
    id: r.id,
    version: Math.max(Date.parse(naiveUtcTimestamp(r.updated) ?? '') || 0, r.t * 1000),
    // Rows replaced by a summarized conversation get new ids: the count and last id together change.
    rows: 1 + r.n + r.last,
  }));
}

function* events(db: ForeignDb, id: string): Generator<SessionEvent> {
  const s = db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as
    Record<string, unknown> | undefined;
  if (!s) return;
  const name = asString(s.name) || asString(s.description);
  const started = naiveUtcTimestamp(s.created_at);
  const updated = naiveUtcTimestamp(s.updated_at);
  yield {
    kind: 'session',
    key: id,
    meta: {
      agent: 'goose',
      sessionId: id,
      ...(name && { title: name }),
      ...(typeof s.working_dir === 'string' && { cwd: s.working_dir }),
      ...(started !== undefined && { startedAt: started }),
      ...(updated !== undefined && { updatedAt: updated }),
      extra: {
        session_type: asString(s.session_type) ?? 'user',
        accumulated_input_tokens: s.accumulated_input_tokens ?? null,
        accumulated_output_tokens: s.accumulated_output_tokens ?? null,
      },
    },
  };
  const rows = db
    .prepare(
      'SELECT id, role, content_json, created_timestamp, metadata_json FROM messages WHERE session_id = ? ORDER BY id',
    )
    .all(id) as MessageRow[];
  const seen = new Map<string, number>();
  for (const row of rows) {
    const base = `goose:${row.created_timestamp}:${crypto.createHash('sha256').update(`${row.role}\0${row.content_json}`).digest('hex').slice(0, 12)}`;
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    yield* gooseMessage(row, n === 0 ? base : `${base}/${n}`);
  }
}

function* gooseMessage(row: MessageRow, key: string): Generator<SessionEvent> {
  let content: unknown;
  try {
    content = JSON.parse(row.content_json) as unknown;
  } catch {
    content = undefined;
  }
  if (!Array.isArray(content)) {
    yield { kind: 'skip', key, where: `message ${row.id}`, reason: 'content_json is not a list' };
    return;
  }
  const meta = parseJsonColumn(row.metadata_json);
  const hidden = meta?.agentVisible === false ? { historyOnly: true } : {};
  const timestamp = naiveUtcTimestamp(row.created_timestamp * 1000);
  const at = timestamp !== undefined ? { timestamp } : {};
  const texts: string[] = [];
  const thoughts: string[] = [];
  const calls: ToolCall[] = [];
  const results: { key: string; message: SessionMessage }[] = [];
  for (const [j, c] of content.entries()) {
    if (!isRecord(c)) continue;
    const type = c.type;
    if (type === 'text') texts.push(asString(c.text) ?? '');
    else if (type === 'image')
      texts.push(`[image${typeof c.mimeType === 'string' ? ` ${c.mimeType}` : ''}]`);
    else if (type === 'thinking') thoughts.push(asString(c.thinking) ?? '');
    else if (type === 'redactedThinking')
      yield { kind: 'ignore', key: `${key}/${j}`, what: 'goose redacted thinking' };
    else if (type === 'toolRequest' || type === 'frontendToolRequest') {
      const call = isRecord(c.toolCall) ? c.toolCall : {};
      const value = isRecord(call.value) ? call.value : undefined;
      const callId = asString(c.id) ?? `${key}-call-${j}`;
      if (!value || typeof value.name !== 'string') {
        yield {
          kind: 'skip',
          key: `${key}/${j}`,
          where: `message ${row.id}`,
          reason: `a tool call Goose could not read: ${asString(call.error) ?? 'no name'}`,
        };
        continue;
      }
      calls.push({
        id: callId,
        type: 'function',
        function: { name: value.name, arguments: argumentsString(value.arguments ?? {}) },
      });
    } else if (type === 'toolResponse') {
      const result = isRecord(c.toolResult) ? c.toolResult : {};
      const value = result.value;
      const list = Array.isArray(value) ? value : isRecord(value) ? value.content : undefined;
      const failed = result.status === 'error' || (isRecord(value) && value.isError === true);
      results.push({
        key: `${key}/tool:${asString(c.id) ?? j}`,
        message: {
          role: 'tool',
          content:
            result.status === 'error' ? (asString(result.error) ?? 'error') : contentText(list),
          tool_call_id: asString(c.id) ?? '',
          isError: failed,
          ...at,
          ...hidden,
        },
      });
    } else if (typeof type === 'string')
      yield { kind: 'ignore', key: `${key}/${j}`, what: `goose ${type}` };
  }
  if (row.role === 'assistant') {
    if (thoughts.length > 0)
      yield {
        kind: 'message',
        key: `${key}/thinking`,
        message: {
          role: 'assistant',
          content: thoughts.join('\n\n'),
          name: REASONING_NAME,
          historyOnly: true,
          ...at,
        },
      };
    if (texts.length === 0 && calls.length === 0) {
      if (thoughts.length === 0)
        yield { kind: 'ignore', key, what: 'goose message without content for the model' };
      return;
    }
    yield {
      kind: 'message',
      key,
      message: {
        role: 'assistant',
        content: texts.length > 0 ? texts.join('\n') : null,
        ...(calls.length > 0 && { tool_calls: calls }),
        ...at,
        ...hidden,
      },
      llmCall: true,
    };
    for (const r of results) yield { kind: 'message', ...r };
    return;
  }
  for (const r of results) yield { kind: 'message', ...r };
  if (texts.length > 0)
    yield {
      kind: 'message',
      key,
      message: { role: 'user', content: texts.join('\n'), ...at, ...hidden },
    };
  else if (results.length === 0)
    yield { kind: 'ignore', key, what: 'goose message without content for the model' };
}

export const gooseDatabaseFormat = databaseFormat({
  agent: 'goose',
  claims: (tables) =>
    tables.has('sessions') && tables.has('messages') && tables.has('schema_version'),
  sessions,
  events: (db, id) => events(db, id),
});
