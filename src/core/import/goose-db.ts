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
 * A `sub_agent` session (the summon extension's `delegate` tool; block/goose at
 * 4ff60c9d70582a9316e1ba5b9d6b22b7c1433cbc, `agents/platform_extensions/summon/delegate.rs`)
 * records no parent: sessions has no parent column (schema 13) and the child is named
 * "Delegated task". Its parent's tool result names it (`toolResult.value._meta
 * .subagent_session_id`, the CallToolResult's meta): the session holding that result is its
 * parent (parentSessionId), so it is a sub-agent task under the parent's. Goose writes that
 * result when the sub-agent is done: a live sync leaves an unnamed sub-agent session until it
 * is (or until it has been still, then read as a session of its own).
 *
 * Keys: goose-message.ts (row ids are not stable). Goose records tokens per session only (no per-call usage): the text is estimated.
 */
import type { StoreSession } from '../sources/sync-store';
import { databaseFormat, parseJsonColumn, type ForeignDb } from './database-format';
import { GooseKeys, gooseMessage, type GooseMessage } from './goose-message';
import type { SessionEvent } from './session-format';
import { asString, isRecord, naiveUtcTimestamp } from './text';

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

function* events(db: ForeignDb, id: string, final: boolean): Generator<SessionEvent> {
  const s = db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as
    Record<string, unknown> | undefined;
  if (!s) return;
  const name = asString(s.name) || asString(s.description);
  const parent = s.session_type === 'sub_agent' ? delegatedBy(db, id) : undefined;
  // Its parent names it once it is done (the delegate call's result): until then, or until
  // it has been still (it may never be named), a sub-agent session waits.
  if (s.session_type === 'sub_agent' && parent === undefined && !final) return;
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
      ...(parent !== undefined && { parentSessionId: parent }),
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
  const keys = new GooseKeys();
  for (const row of rows) {
    let content: unknown;
    try {
      content = JSON.parse(row.content_json) as unknown;
    } catch {
      content = undefined;
    }
    const message: GooseMessage = {
      role: row.role,
      content,
      created: row.created_timestamp,
      metadata: parseJsonColumn(row.metadata_json),
    };
    const key = keys.next(row.role, row.created_timestamp, row.content_json);
    yield* gooseMessage(message, key, `message ${row.id}`);
  }
}

/** The session whose tool result names `id` as the sub-agent session it ran (delegate's `_meta`). */
function delegatedBy(db: ForeignDb, id: string): string | undefined {
  const rows = db
    .prepare(
      `SELECT session_id, content_json FROM messages
        WHERE session_id <> ? AND instr(content_json, 'subagent_session_id') > 0
          AND instr(content_json, ?) > 0
        ORDER BY id`,
    )
    .all(id, JSON.stringify(id)) as { session_id: string; content_json: string }[];
  return rows.find((r) => namesSubagent(r.content_json, id))?.session_id;
}

function namesSubagent(contentJson: string, id: string): boolean {
  let content: unknown;
  try {
    content = JSON.parse(contentJson);
  } catch {
    return false;
  }
  return (
    Array.isArray(content) &&
    content.some((c) => {
      const value = isRecord(c) && isRecord(c.toolResult) ? c.toolResult.value : undefined;
      const meta = isRecord(value) && isRecord(value._meta) ? value._meta : undefined;
      return meta?.subagent_session_id === id;
    })
  );
}

export const gooseDatabaseFormat = databaseFormat({
  agent: 'goose',
  claims: (tables) =>
    tables.has('sessions') && tables.has('messages') && tables.has('schema_version'),
  sessions,
  events: (db, id, final) => events(db, id, final),
});
