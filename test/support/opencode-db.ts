/**
 * opencode.db (and kilo.db) made for tests the way opencode makes it: the `project`,
 * `session`, `message` and `part` tables of sst/opencode
 * `packages/opencode/src/session/session.sql.ts` (columns as drizzle creates them), WAL,
 * filled from a JSON storage folder (`storage/session|message|part`), as opencode's own
 * migration from the JSON storage moves those records into the database: each record's
 * `data` is the JSON without the ids the columns hold.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export const OPENCODE_SCHEMA = `
CREATE TABLE project (
  id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text, icon_url text, icon_color text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_initialized integer, sandboxes text NOT NULL
);
CREATE TABLE session (
  id text PRIMARY KEY, project_id text NOT NULL, workspace_id text, parent_id text, slug text NOT NULL,
  directory text NOT NULL, path text, title text NOT NULL, version text NOT NULL, share_url text,
  summary_additions integer, summary_deletions integer, summary_files integer, summary_diffs text,
  cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL, tokens_output integer DEFAULT 0 NOT NULL,
  tokens_reasoning integer DEFAULT 0 NOT NULL, tokens_cache_read integer DEFAULT 0 NOT NULL,
  tokens_cache_write integer DEFAULT 0 NOT NULL, revert text, permission text, goal text, agent text, model text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer, time_archived integer,
  FOREIGN KEY (project_id) REFERENCES project(id) ON DELETE cascade
);
CREATE INDEX session_project_idx ON session (project_id);
CREATE INDEX session_parent_idx ON session (parent_id);
CREATE TABLE message (
  id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL,
  data text NOT NULL, FOREIGN KEY (session_id) REFERENCES session(id) ON DELETE cascade
);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE part (
  id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, data text NOT NULL, FOREIGN KEY (message_id) REFERENCES message(id) ON DELETE cascade
);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
`;

export interface StorageRecord {
  table: 'session' | 'message' | 'part';
  row: Record<string, unknown>;
}

type Json = Record<string, unknown>;

const read = (file: string): Json => JSON.parse(fs.readFileSync(file, 'utf8')) as Json;
const list = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .sort()
        .map((n) => path.join(dir, n))
    : [];

/** The rows a JSON storage folder becomes, in the order opencode writes them (session, then each message and its parts). */
export function storageRows(storage: string): StorageRecord[] {
  const out: StorageRecord[] = [];
  for (const projectDir of list(path.join(storage, 'session')))
    for (const sessionFile of list(projectDir)) {
      const s = read(sessionFile);
      const time = s.time as Json;
      out.push({
        table: 'session',
        row: {
          id: s.id,
          project_id: s.projectID,
          parent_id: s.parentID ?? null,
          slug: s.slug ?? '',
          directory: s.directory,
          title: s.title,
          version: s.version,
          time_created: time.created,
          time_updated: time.updated,
        },
      });
      for (const messageFile of list(path.join(storage, 'message', String(s.id)))) {
        const { id, sessionID, ...data } = read(messageFile);
        const created = (data.time as Json).created as number;
        out.push({
          table: 'message',
          row: {
            id,
            session_id: sessionID,
            time_created: created,
            time_updated: created,
            data: JSON.stringify(data),
          },
        });
        for (const partFile of list(path.join(storage, 'part', String(id)))) {
          const { id: pid, sessionID: psid, messageID, ...pdata } = read(partFile);
          out.push({
            table: 'part',
            row: {
              id: pid,
              message_id: messageID,
              session_id: psid,
              time_created: created,
              time_updated: created,
              data: JSON.stringify(pdata),
            },
          });
        }
      }
    }
  return out;
}

/** Creates a WAL database with opencode's schema (the writer stays open: close it when done). */
export function createOpencodeDb(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(OPENCODE_SCHEMA);
  return db;
}

export function insertRecords(db: Database.Database, records: readonly StorageRecord[]): void {
  const projects = new Set<string>();
  db.transaction(() => {
    for (const { table, row } of records) {
      if (table === 'session' && !projects.has(String(row.project_id))) {
        projects.add(String(row.project_id));
        db.prepare(
          `INSERT OR IGNORE INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?, ?, 'git', ?, ?, '[]')`,
        ).run(row.project_id, row.directory, row.time_created, row.time_created);
      }
      // An upsert, as opencode writes (a REPLACE would delete a message's parts by cascade).
      const cols = Object.keys(row);
      const set = cols.filter((c) => c !== 'id').map((c) => `${c} = excluded.${c}`);
      db.prepare(
        `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) ON CONFLICT(id) DO UPDATE SET ${set.join(', ')}`,
      ).run(...cols.map((c) => row[c]));
    }
  })();
}

/** An opencode.db holding the records of a JSON storage folder; the writer is closed. */
export function opencodeDbFrom(storage: string, file: string): string {
  const db = createOpencodeDb(file);
  insertRecords(db, storageRows(storage));
  db.close();
  return file;
}
