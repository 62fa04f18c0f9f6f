import path from 'node:path';
import Database from 'better-sqlite3';
import { CwbError } from '../errors';
import { BUSY_TIMEOUT_MS, enableWal, writeTx, type Db } from './open-database';
import { SOURCE_FILES_HELD, SOURCE_FILES_TABLE } from './source-files-schema';

/**
 * Where a contexts folder on a fleet index keeps its sources' sync state (docs/sources.md):
 * how far each session file of this machine has been read is about this machine's files,
 * so it stays in the folder that reads them, while the tasks' rows go to the shared index.
 * On tasks.db the same table lives in tasks.db (schema.ts), committed with the rows.
 */
export const SOURCES_DB_FILE = 'sources.db';

/**
 * Each entry upgrades sources.db from version `index` to `index + 1` (PRAGMA user_version).
 * Version 1 is tasks.db's source_files as its two steps made it, run at once.
 */
const SOURCES_MIGRATIONS: readonly string[] = [SOURCE_FILES_TABLE + SOURCE_FILES_HELD];

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
