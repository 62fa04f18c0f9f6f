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
 * Keys: goose-message.ts (row ids are not stable). Goose records tokens per session only (no per-call usage): the text is estimated.
 */
import type { StoreSession } from '../sources/sync-store';
import { databaseFormat, parseJsonColumn, type ForeignDb } from './database-format';
import { GooseKeys, gooseMessage, type GooseMessage } from './goose-message';
import type { SessionEvent } from './session-format';
import { asString, naiveUtcTimestamp } from './text';

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

export const gooseDatabaseFormat = databaseFormat({
  agent: 'goose',
  claims: (tables) =>
    tables.has('sessions') && tables.has('messages') && tables.has('schema_version'),
  sessions,
  events: (db, id) => events(db, id),
});
