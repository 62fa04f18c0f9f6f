import Database from 'better-sqlite3';
import { StoreUnavailable } from '../sources/sync-store';

/** How long a read waits for another program's lock before the store is left for later. */
const BUSY_WAIT_MS = 250;

/**
 * SQLite result codes that mean "not now": another program holds a lock, is creating the
 * file (not a database yet, or a short read), or is recovering its WAL.
 */
const TRANSIENT = new Set([
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_NOTADB',
  'SQLITE_CORRUPT',
  'SQLITE_CANTOPEN',
  'SQLITE_PROTOCOL',
  'SQLITE_IOERR_SHORT_READ',
  'SQLITE_BUSY_RECOVERY',
  'SQLITE_BUSY_SNAPSHOT',
]);

/**
 * Opens another program's SQLite database (an agent's session store) to read it, never to
 * write it: `readonly` (SQLITE_OPEN_READONLY: no write, no schema change, and closing never
 * checkpoints the agent's WAL into the database nor deletes the WAL — only a connection that
 * may write does that), `fileMustExist` (never creates a file in the agent's folder).
 * Not `immutable`: that would read a live WAL database without its WAL, missing or tearing
 * what the agent wrote since its last checkpoint. `src/core/db/foreign-database.test.ts`
 * proves the database and WAL bytes are the same after a read, with the writer alive or
 * killed. A database that cannot be read now throws StoreUnavailable.
 */
export function openForeignDatabase(file: string): Database.Database {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_WAIT_MS });
    // A query proves it is a database: opening alone reads nothing.
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    return db;
  } catch (err) {
    db?.close();
    throw foreignError(file, err);
  }
}

/** StoreUnavailable for a transient SQLite error; any other error as it is. */
export function foreignError(file: string, err: unknown): Error {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && TRANSIENT.has(code))
    return new StoreUnavailable(file, `${code}: ${(err as Error).message}`);
  return err instanceof Error ? err : new Error(String(err));
}

/** Runs a read on another program's database, turning transient errors into StoreUnavailable. */
export function readForeign<T>(file: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw foreignError(file, err);
  }
}

/** The tables of a database (to tell whose store it is). */
export function tableNames(db: Database.Database): Set<string> {
  const rows = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as {
    name: string;
  }[];
  return new Set(rows.map((r) => r.name));
}
