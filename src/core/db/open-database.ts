import Database from 'better-sqlite3';
import { MIGRATIONS, SCHEMA_VERSION } from './schema';
import { CwbError } from '../errors';
import { backfillSearchIndex } from './task-search';

export type Db = Database.Database;

/**
 * How long opening may spend on the search index backfill after an upgrade to v3: enough
 * to finish it for thousands of tasks; for more, listings carry on where this stops.
 */
const SEARCH_BACKFILL_ON_OPEN_MS = 1000;

/** How long a writer waits for another process's write lock before giving up. */
const BUSY_TIMEOUT_MS = 30_000;

/**
 * Opens tasks.db for one process. Several processes (task workers, the CLI, the app) share
 * the file, so: WAL (readers never block the writer), a generous busy timeout, and every
 * write transaction taken IMMEDIATE (see `writeTx`) so no transaction ever has to upgrade a
 * read lock to a write lock — the one case where SQLite returns SQLITE_BUSY without waiting.
 */
export function openDatabase(file: string, options: { readonly?: boolean } = {}): Db {
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS, readonly: options.readonly ?? false });
  try {
    if (!options.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('foreign_keys = ON');
    if (!options.readonly) {
      migrate(db, file);
      backfillSearchIndex(db, SEARCH_BACKFILL_ON_OPEN_MS);
    } else checkVersion(db, file);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Runs `fn` in a BEGIN IMMEDIATE transaction: it takes the write lock up front (waiting with the busy timeout). */
export function writeTx<T>(db: Db, fn: () => T): T {
  return db.transaction(fn).immediate();
}

function migrate(db: Db, file: string): void {
  writeTx(db, () => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > SCHEMA_VERSION) {
      throw new CwbError(
        'bad_input',
        `${file}: schema version ${current} is newer than this version of cwb understands (${SCHEMA_VERSION}); upgrade cwb`,
      );
    }
    for (let version = current; version < SCHEMA_VERSION; version++) {
      db.exec(MIGRATIONS[version]!);
    }
    if (current !== SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  });
}

function checkVersion(db: Db, file: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current !== SCHEMA_VERSION) {
    throw new CwbError(
      'bad_input',
      `${file}: schema version ${current}, expected ${SCHEMA_VERSION}`,
    );
  }
}
