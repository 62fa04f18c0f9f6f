/**
 * Crush sessions (charmbracelet/crush `internal/db/migrations`, `internal/message`): the
 * SQLite store `<project>/.crush/crush.db`, `sessions` (id, parent_session_id, title,
 * prompt/completion tokens, cost, created_at/updated_at in seconds) and `messages` (id,
 * session_id, role user/assistant/tool/system, parts: a JSON list of `{type, data}` — plain,
 * or a zstd frame in newer releases —, model, created_at). Crush rewrites an assistant row in
 * place as it streams and adds a `finish` part at its end.
 *
 * - user → text (+ a line per attachment); assistant → reasoning (history-only), then text and
 *   `tool_call` parts (input: a JSON string) as one LLM call; tool → one tool message per
 *   `tool_result` part (`is_error` a failed call); system rows are not the conversation.
 * - Unless `final`, an assistant row without its `finish` part is left for a later read.
 * - A summary (`is_summary_message`, internal/agent/agent.go `Summarize`): an assistant row
 *   whose text the model continues from (Crush sends it as the first user message, dropping
 *   everything before it): the agent's own compaction record (agent-compaction.ts).
 * - A sub-agent's session (the `agent` tool's, id `<message id>$$<call id>`) names its parent
 *   (`parent_session_id`): a sub-agent task under the parent's.
 *
 * Keys: `crush:<message id>`, `crush:<message id>/reasoning`, `crush:<message id>/<call id>`.
 * The working directory is the project holding `.crush/`. Crush records tokens and cost per
 * session only: kept in the task's source, the text of the messages is estimated.
 */
import path from 'node:path';
import { decompress } from 'fzstd';
import type { ToolCall } from '../../shared/task-types';
import type { StoreSession } from '../sources/sync-store';
import { databaseFormat, type ForeignDb } from './database-format';
import type { SessionEvent, SessionMessage } from './session-format';
import { REASONING_NAME } from './types';
import { asString, isRecord, normalizeTimestamp } from './text';

const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];

/** Crush times are seconds (milliseconds in a few releases). */
function crushTime(value: unknown): string | undefined {
  if (typeof value !== 'number' || value <= 0) return undefined;
  return normalizeTimestamp(value > 1e12 ? value : value * 1000);
}

/** The parts column: plain JSON, or zstd-compressed JSON. */
export function decodeParts(stored: unknown): unknown {
  let bytes: Uint8Array;
  if (typeof stored === 'string') bytes = Buffer.from(stored, 'utf8');
  else if (stored instanceof Uint8Array) bytes = stored;
  else return undefined;
  if (ZSTD_MAGIC.every((b, i) => bytes[i] === b)) bytes = decompress(bytes);
  return JSON.parse(
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
  ) as unknown;
}

function sessions(db: ForeignDb): StoreSession[] {
  const rows = db
    .prepare(
      `SELECT s.id AS id, s.updated_at AS su, count(m.id) AS n,
              coalesce(max(m.updated_at), 0) AS mu, coalesce(sum(length(m.parts)), 0) AS bytes,
              coalesce(s.parent_session_id IN (SELECT id FROM sessions), 0) AS parent
         FROM sessions s LEFT JOIN messages m ON m.session_id = s.id
        GROUP BY s.id ORDER BY s.created_at, s.id`,
    )
    .all() as { id: string; su: number; n: number; mu: number; bytes: number; parent: number }[];
  const ms = (t: number): number => (t > 1e12 ? t : t * 1000);
  return rows.map((r) => ({
    id: r.id,
    version: Math.max(ms(r.su ?? 0), ms(r.mu)),
    // Updated in place within one second: the parts' size tells the change. A sub-agent's
    // session counts its parent once that is here (synced again then, to hang under it).
    rows: 1 + r.n + r.bytes + r.parent,
  }));
}

interface Row {
  id: string;
  role: string;
  parts: unknown;
  model: string | null;
  created_at: number;
  /** Crush 0.7+ (a column added by a migration): 1 on a summary. */
  is_summary_message?: number;
}

function* events(db: ForeignDb, id: string, final: boolean, file: string): Generator<SessionEvent> {
  const s = db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as
    Record<string, unknown> | undefined;
  if (!s) return;
  // SELECT * : a database older than the summary column has none.
  const rows = db
    .prepare('SELECT * FROM messages WHERE session_id = ? ORDER BY created_at, rowid')
    .all(id) as Row[];
  const model = rows
    .map((r) => r.model)
    .find((m): m is string => typeof m === 'string' && m !== '');
  const started = crushTime(s.created_at);
  const updated = crushTime(s.updated_at);
  const title = asString(s.title)?.trim();
  const parent = asString(s.parent_session_id);
  yield {
    kind: 'session',
    key: id,
    meta: {
      agent: 'crush',
      sessionId: id,
      ...(title && { title }),
      cwd: path.dirname(path.dirname(path.resolve(file))),
      ...(model !== undefined && { model }),
      ...(started !== undefined && { startedAt: started }),
      ...(updated !== undefined && { updatedAt: updated }),
      ...(parent && { parentSessionId: parent }),
      extra: {
        parent_session_id: parent ?? null,
        prompt_tokens: s.prompt_tokens ?? null,
        completion_tokens: s.completion_tokens ?? null,
        cost: s.cost ?? null,
      },
    },
  };
  for (const row of rows) yield* crushMessage(row, final);
}

function* crushMessage(row: Row, final: boolean): Generator<SessionEvent> {
  const key = `crush:${row.id}`;
  let parts: unknown;
  try {
    parts = decodeParts(row.parts);
  } catch (err) {
    yield {
      kind: 'skip',
      key,
      where: `message ${row.id}`,
      reason: `parts unreadable: ${(err as Error).message}`,
    };
    return;
  }
  if (!Array.isArray(parts)) {
    yield { kind: 'skip', key, where: `message ${row.id}`, reason: 'parts is not a list' };
    return;
  }
  const timestamp = crushTime(row.created_at);
  const at = timestamp !== undefined ? { timestamp } : {};
  const texts: string[] = [];
  const thinking: string[] = [];
  const calls: ToolCall[] = [];
  const results: { key: string; message: SessionMessage }[] = [];
  let finished = false;
  let finishReason: string | undefined;
  for (const part of parts) {
    if (!isRecord(part)) continue;
    const data = isRecord(part.data) ? part.data : {};
    switch (part.type) {
      case 'text':
        texts.push(asString(data.text) ?? '');
        break;
      case 'reasoning':
        if (asString(data.thinking)) thinking.push(data.thinking as string);
        break;
      case 'binary':
        texts.push(`[file: ${asString(data.Path) ?? asString(data.path) ?? 'attachment'}]`);
        break;
      case 'image_url':
        texts.push(`[image: ${asString(data.url) ?? ''}]`);
        break;
      case 'shell_command':
        texts.push(`$ ${asString(data.command) ?? ''}\n${asString(data.output) ?? ''}`);
        break;
      case 'tool_call':
        calls.push({
          id: asString(data.id) ?? `${key}-call-${calls.length + 1}`,
          type: 'function',
          function: {
            name: asString(data.name) ?? 'tool',
            arguments: asString(data.input) || '{}',
          },
        });
        break;
      case 'tool_result': {
        const callId = asString(data.tool_call_id) ?? '';
        results.push({
          key: `${key}/${callId}`,
          message: {
            role: 'tool',
            content: asString(data.content) ?? '',
            tool_call_id: callId,
            ...(asString(data.name) && { tool_name: data.name as string }),
            isError: data.is_error === true,
            ...at,
          },
        });
        break;
      }
      case 'finish':
        finished = true;
        finishReason = asString(data.reason);
        break;
      default:
        yield { kind: 'ignore', key, what: `crush ${String(part.type)} part` };
    }
  }
  if (row.role === 'assistant' && row.is_summary_message === 1) {
    if (!final && !finished) return; // still streaming: read whole later
    yield* crushSummary(row, { texts, thinking, failed: finishReason === 'error' }, at);
  } else if (row.role === 'assistant') {
    if (!final && !finished) return; // still streaming: read whole later
    if (thinking.length > 0)
      yield {
        kind: 'message',
        key: `${key}/reasoning`,
        message: {
          role: 'assistant',
          content: thinking.join('\n\n'),
          name: REASONING_NAME,
          historyOnly: true,
          ...at,
        },
      };
    if (texts.every((t) => t.trim() === '') && calls.length === 0) {
      yield {
        kind: 'skip',
        key,
        where: `message ${row.id}`,
        reason: 'an assistant message without text or tool calls',
      };
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
      },
      llmCall: true,
      ...(row.model ? { model: row.model } : {}),
    };
  } else if (row.role === 'tool') {
    for (const r of results) yield { kind: 'message', ...r };
    if (results.length === 0)
      yield {
        kind: 'skip',
        key,
        where: `message ${row.id}`,
        reason: 'a tool message without results',
      };
  } else if (row.role === 'user') {
    if (texts.length === 0)
      yield {
        kind: 'skip',
        key,
        where: `message ${row.id}`,
        reason: 'a user message without text',
      };
    else
      yield { kind: 'message', key, message: { role: 'user', content: texts.join('\n'), ...at } };
  } else yield { kind: 'ignore', key, what: `crush ${row.role} message` };
}

/** A summary row: the compaction record, its text the context the next turn starts from. */
function* crushSummary(
  row: Row,
  content: { texts: string[]; thinking: string[]; failed: boolean },
  at: { timestamp?: string },
): Generator<SessionEvent> {
  const key = `crush:${row.id}`;
  if (content.thinking.length > 0)
    yield { kind: 'ignore', key: `${key}/reasoning`, what: 'crush summary reasoning' };
  const summary = content.texts.join('\n').trim();
  // A failed summary is not used by Crush (the session's summary_message_id stays as it was).
  if (summary === '' || content.failed) {
    yield {
      kind: 'skip',
      key,
      where: `message ${row.id}`,
      reason: content.failed
        ? 'a summary whose model call failed'
        : 'a summary without text (its model call was cut off)',
    };
    return;
  }
  yield {
    kind: 'compaction',
    key,
    compaction: {
      strategy: 'crush-compact',
      summary,
      // Crush hands the summary to the model as the user's first message.
      messages: [{ role: 'user', content: summary, kind: 'summary', ...at }],
      ...(at.timestamp !== undefined && { at: at.timestamp }),
      ...(row.model ? { model: row.model } : {}),
      extra: { source_format: 'crush' },
    },
  };
}

export const crushDatabaseFormat = databaseFormat({
  agent: 'crush',
  claims: (tables) => tables.has('sessions') && tables.has('messages') && tables.has('files'),
  sessions,
  events,
});
