import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS, SCHEMA_VERSION } from './schema';
import { CwbError } from '../errors';
import { sleepSync } from '../sleep-sync';
import { backfillSearchIndex } from './task-search';
import { gated } from './write-gate';

export type Db = Database.Database;

/**
 * How long opening may spend on the search index backfill after an upgrade to v3: enough
 * to finish it for thousands of tasks; for more, listings carry on where this stops.
 */
const SEARCH_BACKFILL_ON_OPEN_MS = 1000;

/** How long a writer waits for another process's write lock before giving up. */
export const BUSY_TIMEOUT_MS = 30_000;

/**
 * Opens tasks.db for one process. Several processes (task workers, the CLI, the app) share
 * the file, so: WAL (readers never block the writer), a generous busy timeout, and every
 * write transaction taken IMMEDIATE (see `writeTx`) so no transaction ever has to upgrade a
 * read lock to a write lock — the one case where SQLite returns SQLITE_BUSY without waiting.
 */
export function openDatabase(
  file: string,
  options: { readonly?: boolean; searchBackfill?: boolean } = {},
): Db {
  let db: Db;
  try {
    db = new Database(file, { timeout: BUSY_TIMEOUT_MS, readonly: options.readonly ?? false });
  } catch (err) {
    throw userFixable(err) ? cannotOpen(file, err) : err;
  }
  try {
    if (!options.readonly) {
      enableWal(db);
      db.pragma('synchronous = NORMAL');
      db.pragma('temp_store = MEMORY');
    }
    db.pragma('foreign_keys = ON');
    if (!options.readonly) {
      migrate(db, file);
      if (options.searchBackfill !== false) backfillSearchIndex(db, SEARCH_BACKFILL_ON_OPEN_MS);
    } else checkVersion(db, file);
    return db;
  } catch (err) {
    db.close();
    throw userFixable(err) ? cannotOpen(file, err) : err;
  }
}

/**
 * Switches tasks.db to WAL (a no-op once it is). Processes opening a new tasks.db at the same
 * moment each ask for the switch; when two of them hold a read lock and both need the
 * exclusive one, SQLite answers one SQLITE_BUSY at once, without waiting (a deadlock, which
 * no busy timeout resolves). The other finishes the switch, so asking again succeeds.
 */
export function enableWal(db: Db): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw err;
      sleepSync(10);
    }
  }
}

/**
 * A tasks.db that cannot be opened (a read-only contexts folder: WAL needs to write its
 * -shm and -wal files even to read; no permission; a damaged file) is the user's to fix:
 * one line that says which file and why, not an internal error with a stack trace.
 */
const USER_FIXABLE = /^(SQLITE_(CANTOPEN|READONLY|PERM|NOTADB|CORRUPT|AUTH)|EROFS|EACCES|EPERM)/;

/** Errors the user fixes on their side; others (SQLITE_FULL, SQLITE_BUSY, bugs) go on as they are. */
function userFixable(err: unknown): boolean {
  if (err instanceof CwbError) return false;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && USER_FIXABLE.test(code);
}

function cannotOpen(file: string, err: unknown): CwbError {
  const code = (err as { code?: unknown }).code;
  const reason = `${typeof code === 'string' ? `${code}: ` : ''}${(err as Error).message}`;
  const dir = path.dirname(file);
  let hint = '';
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (access) {
    const why = (access as NodeJS.ErrnoException).code;
    if (why === 'EROFS' || why === 'EACCES' || why === 'EPERM')
      hint = `; the contexts folder ${dir} is not writable (${why}), and tasks.db needs to write beside itself even to be read`;
  }
  const error = new CwbError('io', `cannot open ${file} (${reason})${hint}`);
  // Kept for whoever looks at causes (the full-disk check does).
  Object.defineProperty(error, 'cause', { value: err });
  return error;
}

/**
 * Runs `fn` in a BEGIN IMMEDIATE transaction: it takes the write lock up front (waiting with
 * the busy timeout), after this process's other threads' writes (write-gate.ts).
 */
export function writeTx<T>(db: Db, fn: () => T): T {
  return gated(() => db.transaction(fn).immediate());
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
