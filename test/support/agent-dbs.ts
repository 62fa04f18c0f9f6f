/**
 * The session databases of Goose, Crush and Zed made for tests with each agent's own schema
 * (block/goose `crates/goose/src/session/session_manager.rs` `create`; charmbracelet/crush
 * `internal/db/migrations/20250424200609_initial.sql`; zed-industries/zed
 * `crates/agent/src/db.rs` `ThreadsDatabase::new`), WAL as the agents open them, filled from
 * the real-shaped rows in test/fixtures/real/{goose,crush,zed}.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { realFixture } from './real-fixtures';

type Row = Record<string, unknown>;

export const GOOSE_SCHEMA = `
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
INSERT INTO schema_version (version) VALUES (5);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
  user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
  accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
  schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT
);
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
  content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  tokens INTEGER, metadata_json TEXT
);
CREATE INDEX idx_messages_session ON messages(session_id);
`;

/** After every migration of crush (commit 37f36e938): a summary's columns, the messages' provider, todos. */
export const CRUSH_SCHEMA = `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
  message_count INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
  updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT, todos TEXT
);
CREATE TABLE files (
  id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE, UNIQUE(path, session_id, version)
);
CREATE TABLE messages (
  id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts BLOB NOT NULL default '[]',
  model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER,
  provider TEXT, is_summary_message INTEGER DEFAULT 0 NOT NULL,
  FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE
);
CREATE INDEX idx_messages_session_id ON messages (session_id);
CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY AUTOINCREMENT, version_id INTEGER NOT NULL, is_applied INTEGER NOT NULL, tstamp TIMESTAMP DEFAULT (datetime('now')));
`;

export const ZED_SCHEMA = `
CREATE TABLE threads (
  id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, data_type TEXT NOT NULL, data BLOB NOT NULL,
  parent_id TEXT, folder_paths TEXT, folder_paths_order TEXT, created_at TEXT
);
`;

const readJson = <T>(...parts: string[]): T =>
  JSON.parse(fs.readFileSync(realFixture(...parts), 'utf8')) as T;

export function openWal(file: string, schema: string): Database.Database {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(schema);
  return db;
}

export function insertRow(db: Database.Database, table: string, row: Row): void {
  const cols = Object.keys(row);
  const set = cols.filter((c) => c !== 'id').map((c) => `${c} = excluded.${c}`);
  db.prepare(
    `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) ON CONFLICT(id) DO UPDATE SET ${set.join(', ')}`,
  ).run(...cols.map((c) => row[c] ?? null));
}

/** A Goose fixture's rows: `sessions.json`, or `delegate.json` (a delegate's sub_agent session). */
export const gooseRows = (name = 'sessions.json'): { sessions: Row[]; messages: Row[] } =>
  readJson('goose', name);

/** Crush rows; a message stored zstd-compressed in the fixture gets its bytes as a Buffer. */
export function crushRows(): { sessions: Row[]; messages: Row[] } {
  const data = readJson<{ sessions: Row[]; messages: Row[] }>('crush', 'crush.json');
  const messages = data.messages.map(({ parts_zstd_base64: z, ...m }) => ({
    session_id: data.sessions[0]!.id,
    ...m,
    parts: typeof z === 'string' ? Buffer.from(z, 'base64') : m.parts,
    updated_at: m.created_at,
  }));
  return { sessions: data.sessions, messages };
}

export function zedRows(): Row[] {
  const { threads } = readJson<{ threads: Row[] }>('zed', 'threads.json');
  return threads.map(({ data_file: f, ...t }) => ({
    ...t,
    data: fs.readFileSync(realFixture('zed', String(f))),
  }));
}

/** A sessions.db of these Goose fixtures' rows (the later ones' messages numbered after the first's). */
export function gooseDb(file: string, names: string[] = ['sessions.json']): string {
  const db = openWal(file, GOOSE_SCHEMA);
  for (const [i, name] of names.entries()) {
    const { sessions, messages } = gooseRows(name);
    for (const s of sessions) insertRow(db, 'sessions', s);
    for (const { id, ...m } of messages) insertRow(db, 'messages', i === 0 ? { id, ...m } : m);
  }
  db.close();
  return file;
}

export function crushDb(file: string): string {
  const db = openWal(file, CRUSH_SCHEMA);
  const { sessions, messages } = crushRows();
  for (const s of sessions) insertRow(db, 'sessions', s);
  for (const m of messages) insertRow(db, 'messages', m);
  db.close();
  return file;
}

export function zedDb(file: string): string {
  const db = openWal(file, ZED_SCHEMA);
  for (const t of zedRows()) insertRow(db, 'threads', t);
  db.close();
  return file;
}
