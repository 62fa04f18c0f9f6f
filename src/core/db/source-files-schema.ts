/**
 * The sources' sync state (table `source_files`, docs/sources.md) in the two databases that
 * hold it: tasks.db (schema.ts, two steps of its history) and, on a fleet index, the contexts
 * folder's sources.db (sources-db.ts, both steps at once). One text for both, so the two
 * tables cannot drift apart; neither step may ever change (a database that ran it keeps it).
 */

/**
 * Live sources (src/core/sources): one row per session file of another agent, with how far
 * it has been read. `pending` is the byte range of a sync in progress (recovery re-reads
 * exactly it), `lease_*` the process doing it. Only src/core/sources reads or writes it.
 */
export const SOURCE_FILES_TABLE = `
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
    notice TEXT
  );
  CREATE INDEX IF NOT EXISTS source_files_kind ON source_files (kind);
  `;

/**
 * 1 while a file's last reply is held back or its calls wait for a result; a sync of the
 * file once it has been still finishes them (src/core/sources/sync-file.ts).
 */
export const SOURCE_FILES_HELD = `
  ALTER TABLE source_files ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
  `;
