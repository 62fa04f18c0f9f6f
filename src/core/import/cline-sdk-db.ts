/**
 * `cwb import ~/.cline/data/db/sessions.db`: every session of Cline's SDK store
 * (cline-sdk.ts), each read from its messages file — `<data>/sessions/<root>/<stem>.messages.json`
 * beside the database's folder, else the row's `messages_path` — roots before their
 * spawn_agent children, so a child goes under its parent. A row whose messages file is gone
 * is passed over. The live source reads the messages files themselves (source-kinds.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { StoreSession } from '../sources/sync-store';
import { clineSdkEvents, isClineSdkDocument } from './cline-sdk';
import { databaseFormat, type ForeignDb } from './database-format';
import type { SessionEvent } from './session-format';
import { asString } from './text';

interface Row {
  session_id: string;
  updated_at: unknown;
  messages_path: unknown;
}

/** The session's messages file: the one beside the database's data folder, else the row's path. */
function messagesFile(dbFile: string, row: Row): string | undefined {
  const id = row.session_id;
  const split = id.indexOf('__');
  const root = split > 0 ? id.slice(0, split) : id;
  const stem = split > 0 ? id.slice(split + 2) : id;
  const sessions = path.join(path.dirname(path.dirname(path.resolve(dbFile))), 'sessions');
  const candidates = [
    path.join(sessions, root, `${stem}.messages.json`),
    asString(row.messages_path),
  ].filter((p): p is string => p !== undefined && p !== '');
  return candidates.find((p) => fs.existsSync(p));
}

function rows(db: ForeignDb): Row[] {
  return db
    .prepare(
      'SELECT session_id, updated_at, messages_path FROM sessions ORDER BY is_subagent, started_at, session_id',
    )
    .all() as Row[];
}

function sessions(db: ForeignDb, dbFile: string): StoreSession[] {
  const out: StoreSession[] = [];
  for (const row of rows(db)) {
    const file = messagesFile(dbFile, row);
    if (file === undefined) continue;
    const stat = fs.statSync(file);
    out.push({
      id: row.session_id,
      version: Math.max(Date.parse(String(row.updated_at)) || 0, stat.mtimeMs),
      rows: stat.size,
    });
  }
  return out;
}

function* events(db: ForeignDb, id: string, dbFile: string): Generator<SessionEvent> {
  const row = rows(db).find((r) => r.session_id === id);
  const file = row && messagesFile(dbFile, row);
  if (file === undefined) return;
  let doc: unknown;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    yield { kind: 'skip', key: id, where: file, reason: `unreadable: ${(err as Error).message}` };
    return;
  }
  if (isClineSdkDocument(doc)) yield* clineSdkEvents(file, doc);
  else yield { kind: 'skip', key: id, where: file, reason: 'not a Cline messages file' };
}

export const clineSdkDatabaseFormat = databaseFormat({
  agent: 'cline',
  claims: (tables) => tables.has('sessions') && tables.has('subagent_spawn_queue'),
  // better-sqlite3's `name` is the file the database was opened from.
  sessions: (db) => sessions(db, db.name),
  events: (db, id, _final, file) => events(db, id, file),
});
