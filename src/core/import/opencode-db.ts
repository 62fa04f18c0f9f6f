/**
 * opencode's SQLite store (`~/.local/share/opencode/opencode.db`, WAL; Kilo CLI's `kilo.db`
 * has the same tables): `session` (id, directory, title, parent_id, time_created,
 * time_updated, cost…), `message` (id, session_id, time_created, time_updated, data: the
 * message info as JSON) and `part` (id, message_id, session_id, time_*, data: the part as
 * JSON). See sst/opencode `packages/opencode/src/session/session.sql.ts`; mapped by
 * opencode.ts as the JSON storage is.
 */
import type { StoreSession } from '../sources/sync-store';
import {
  databaseFormat,
  parseJsonColumn,
  type DatabaseFormat,
  type ForeignDb,
} from './database-format';
import { opencodeEvents, type OpencodeMessage, type OpencodeSession } from './opencode';
import type { AgentId, SessionEvent } from './session-format';

const TABLES = ['session', 'message', 'part'];

interface Counted {
  id: string;
  n: number;
  t: number | null;
}

function sessions(db: ForeignDb): StoreSession[] {
  const byId = new Map<string, StoreSession>();
  // Oldest first: an import makes a parent's task before its sub-agents' (session-import.ts).
  // A sub-agent's session counts its parent once that is here: synced before its parent, it
  // is synced again when the parent comes, and then hangs under the parent's task.
  const rows = db
    .prepare(
      `SELECT id, time_updated AS t, coalesce(parent_id IN (SELECT id FROM session), 0) AS n
         FROM session ORDER BY time_created, id`,
    )
    .all() as Counted[];
  for (const r of rows) byId.set(r.id, { id: r.id, version: r.t ?? 0, rows: 1 + r.n });
  for (const table of ['message', 'part']) {
    const counted = db
      .prepare(
        `SELECT session_id AS id, count(*) AS n, max(time_updated) AS t FROM ${table} GROUP BY session_id`,
      )
      .all() as Counted[];
    for (const c of counted) {
      const s = byId.get(c.id);
      if (!s) continue; // rows of a session being deleted
      s.rows += c.n;
      s.version = Math.max(s.version, c.t ?? 0);
    }
  }
  return [...byId.values()];
}

function* events(
  agent: AgentId,
  db: ForeignDb,
  id: string,
  final: boolean,
): Generator<SessionEvent> {
  const row = db.prepare('SELECT * FROM session WHERE id = ?').get(id) as
    Record<string, unknown> | undefined;
  if (!row) return;
  const session: OpencodeSession = {
    id,
    ...(typeof row.title === 'string' && { title: row.title }),
    ...(typeof row.directory === 'string' && { directory: row.directory }),
    ...(typeof row.parent_id === 'string' && { parentId: row.parent_id }),
    ...(typeof row.project_id === 'string' && { projectId: row.project_id }),
    ...(typeof row.version === 'string' && { version: row.version }),
    ...(typeof row.time_created === 'number' && { created: row.time_created }),
    ...(typeof row.time_updated === 'number' && { updated: row.time_updated }),
    ...(typeof row.cost === 'number' && { cost: row.cost }),
  };
  const messageRows = db
    .prepare('SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id')
    .all(id) as { id: string; data: string }[];
  const partRows = db
    .prepare('SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id')
    .all(id) as { id: string; message_id: string; data: string }[];
  const bad: SessionEvent[] = [];
  const parts = new Map<string, Record<string, unknown>[]>();
  for (const p of partRows) {
    const data = parseJsonColumn(p.data);
    if (!data) {
      bad.push({
        kind: 'skip',
        key: `opencode:${p.id}`,
        where: `part ${p.id}`,
        reason: 'data is not a JSON object',
      });
      continue;
    }
    const list = parts.get(p.message_id) ?? [];
    list.push({ ...data, id: p.id });
    parts.set(p.message_id, list);
  }
  const messages: OpencodeMessage[] = [];
  for (const m of messageRows) {
    const info = parseJsonColumn(m.data);
    if (!info) {
      bad.push({
        kind: 'skip',
        key: `opencode:${m.id}`,
        where: `message ${m.id}`,
        reason: 'data is not a JSON object',
      });
      continue;
    }
    messages.push({ id: m.id, info, parts: parts.get(m.id) ?? [] });
  }
  const all = opencodeEvents(agent, session, messages, final);
  const first = all.next();
  if (!first.done) yield first.value;
  yield* bad;
  yield* all;
}

function opencodeDbFormat(agent: AgentId, isOwnFile: (name: string) => boolean): DatabaseFormat {
  return databaseFormat({
    agent,
    claims: (tables, name) => TABLES.every((t) => tables.has(t)) && isOwnFile(name),
    sessions,
    events: (db, id, final) => events(agent, db, id, final),
  });
}

/** Kilo CLI names its store kilo.db (kilo-<channel>.db); everything else with these tables is opencode's. */
const isKiloFile = (name: string): boolean => /^kilo([-.]|$)/i.test(name);

export const opencodeDatabaseFormat = opencodeDbFormat('opencode', (name) => !isKiloFile(name));
export const kiloDatabaseFormat = opencodeDbFormat('kilo', isKiloFile);
