import path from 'node:path';
import Database from 'better-sqlite3';
import { CwbError } from '../errors';
import { BUSY_TIMEOUT_MS, enableWal, writeTx, type Db } from './open-database';

/**
 * Where a contexts folder on a fleet index keeps its sources' sync state (docs/sources.md):
 * how far each session file of this machine has been read is about this machine's files,
 * so it stays in the folder that reads them, while the tasks' rows go to the shared index.
 * On tasks.db the same table lives in tasks.db (schema.ts), committed with the rows.
 */
export const SOURCES_DB_FILE = 'sources.db';

/** Each entry upgrades sources.db from version `index` to `index + 1` (PRAGMA user_version). */
const SOURCES_MIGRATIONS: readonly string[] = [
  // The shape tasks.db's source_files has (schema.ts), in one step.
  `
  CREATE TABLE IF NOT EXISTS source_files (
    path TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    task_uuid TEXT,
    generation INTEGER NOT NULL DEFAULT 0,
    offset INTEGER NOT NULL DEFAULT 0,
    line_no INTEGER NOT NULL DEFAULT 0,
    fingerprint TEXT,
    size INTEGER NOT NULL DEFAULT 0,
    mtime_ms REAL NOT NULL DEFAULT 0,
    inode TEXT,
    messages INTEGER NOT NULL DEFAULT 0,
    state TEXT,
    pending TEXT,
    lease_pid INTEGER,
    lease_host TEXT,
    lease_at TEXT,
    synced_at TEXT,
    error TEXT,
    notice TEXT,
    held INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX IF NOT EXISTS source_files_kind ON source_files (kind);
  `,
];

/** Opens (creating it the first time) the sources' sync state of the contexts folder `root`. */
export function openSourcesDb(root: string): Db {
  const file = path.join(root, SOURCES_DB_FILE);
  let db: Db;
  try {
    db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  } catch (err) {
    throw new CwbError('io', `cannot open ${file}: ${(err as Error).message}`);
  }
  try {
    enableWal(db);
    db.pragma('synchronous = NORMAL');
    writeTx(db, () => {
      const current = db.pragma('user_version', { simple: true }) as number;
      if (current > SOURCES_MIGRATIONS.length) {
        throw new CwbError(
          'bad_input',
          `${file}: schema version ${current} is newer than this version of cwb understands (${SOURCES_MIGRATIONS.length}); upgrade cwb`,
        );
      }
      for (let v = current; v < SOURCES_MIGRATIONS.length; v++) db.exec(SOURCES_MIGRATIONS[v]!);
      if (current !== SOURCES_MIGRATIONS.length)
        db.pragma(`user_version = ${SOURCES_MIGRATIONS.length}`);
    });
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
