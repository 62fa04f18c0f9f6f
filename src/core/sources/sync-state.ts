import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import type { Db } from '../db/open-database';
import { writeTx } from '../db/open-database';
import { prepared } from '../db/prepared';
import { gated } from '../db/write-gate';
import { isoTimestamp } from '../iso-timestamp';

/** One session file of another agent and how far it has been read (table source_files). */
export interface SourceFileRow {
  path: string;
  kind: string;
  /** The file's main task (the first thread that got a message). */
  task_uuid: string | null;
  /** Bumped when the file was replaced or truncated: its threads get new tasks. */
  generation: number;
  /** Bytes read and imported: always the end of a complete line. */
  offset: number;
  /** Lines read (the line number of the last one). */
  line_no: number;
  fingerprint: string | null;
  size: number;
  mtime_ms: number;
  inode: string | null;
  /** Messages written from this file, over all its tasks. */
  messages: number;
  /** The format mapper's own state (JSON) plus the file's threads and their tasks. */
  state: string | null;
  /** A sync in progress: the range it reads (JSON `{start, end, final?}`). */
  pending: string | null;
  /** 1: something waits for the file to be still (a reply held back, calls without a result). */
  held: number;
  lease_pid: number | null;
  lease_host: string | null;
  lease_at: string | null;
  synced_at: string | null;
  error: string | null;
  notice: string | null;
}

/** How long a lease held by a process on another host (or one we cannot check) counts. */
export const LEASE_MS = 60_000;
/** A lease of a live pid on this host older than this is taken over (the pid was reused). */
export const LOCAL_LEASE_MS = 15 * 60_000;

/**
 * The source_files table. Claims are IMMEDIATE transactions, so two processes never both
 * believe they own a file; a lease whose process is gone (SIGKILL) is taken over.
 */
export class SyncStateRepository {
  constructor(private readonly db: Db) {}

  get(path: string): SourceFileRow | undefined {
    return prepared(this.db, 'SELECT * FROM source_files WHERE path = ?').get(path) as
      SourceFileRow | undefined;
  }

  list(kind?: string): SourceFileRow[] {
    return (
      kind === undefined
        ? prepared(this.db, 'SELECT * FROM source_files ORDER BY path').all()
        : prepared(this.db, 'SELECT * FROM source_files WHERE kind = ? ORDER BY path').all(kind)
    ) as SourceFileRow[];
  }

  /**
   * Takes the file for this process, or returns undefined when a live process holds it.
   * `prepare` runs inside the same transaction with the row as it is (created if new) and
   * may write the pending range.
   */
  claim<T>(
    path: string,
    kind: string,
    prepare: (row: SourceFileRow) => T,
  ): { row: SourceFileRow; value: T } | undefined {
    return writeTx(this.db, () => {
      prepared(
        this.db,
        'INSERT INTO source_files (path, kind) VALUES (?, ?) ON CONFLICT (path) DO NOTHING',
      ).run(path, kind);
      const row = this.get(path)!;
      if (leaseHeld(row)) return undefined;
      prepared(
        this.db,
        'UPDATE source_files SET lease_pid = ?, lease_host = ?, lease_at = ? WHERE path = ?',
      ).run(process.pid, os.hostname(), isoTimestamp(), path);
      const value = prepare(row);
      return { row: this.get(path)!, value };
    });
  }

  /** Rows of `kind` whose file has the name `name` (in any folder): where a moved file was read. */
  named(kind: string, name: string): SourceFileRow[] {
    return (
      prepared(
        this.db,
        'SELECT * FROM source_files WHERE kind = ? AND substr(path, -length(?)) = ? ORDER BY path',
      ).all(kind, name, name) as SourceFileRow[]
    ).filter((row) => nodePath.basename(row.path) === name);
  }

  /** Rows of `kind` whose path ends with `suffix`. */
  endingWith(kind: string, suffix: string): SourceFileRow[] {
    return prepared(
      this.db,
      'SELECT * FROM source_files WHERE kind = ? AND substr(path, -length(?)) = ? ORDER BY path',
    ).all(kind, suffix, suffix) as SourceFileRow[];
  }

  /** The file's row now stands for its new path (the agent moved the file). */
  rename(from: string, to: string): void {
    prepared(this.db, 'UPDATE source_files SET path = ? WHERE path = ?').run(to, from);
  }

  update(path: string, fields: Partial<Omit<SourceFileRow, 'path'>>): void {
    const keys = Object.keys(fields);
    if (keys.length === 0) return;
    const statement = prepared(
      this.db,
      `UPDATE source_files SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE path = @path`,
    );
    gated(() => statement.run({ ...fields, path }));
  }

  /** Gives the lease back (only if this process holds it). */
  release(path: string): void {
    const statement = prepared(
      this.db,
      'UPDATE source_files SET lease_pid = NULL, lease_host = NULL, lease_at = NULL WHERE path = ? AND lease_pid = ? AND lease_host = ?',
    );
    gated(() => statement.run(path, process.pid, os.hostname()));
  }

  remove(path: string): void {
    prepared(this.db, 'DELETE FROM source_files WHERE path = ?').run(path);
  }

  write<T>(fn: () => T): T {
    return writeTx(this.db, fn);
  }
}

/** Whether another live process holds the file's lease. */
function leaseHeld(row: SourceFileRow): boolean {
  if (row.lease_pid === null) return false;
  if (row.lease_pid === process.pid && row.lease_host === os.hostname()) {
    // This process: a sync of the same file already runs here (callers serialize per
    // file), or a leftover of a failed one; the caller's own queue decides.
    return false;
  }
  const age = Date.now() - (row.lease_at === null ? 0 : Date.parse(row.lease_at));
  if (row.lease_host === os.hostname()) return processAlive(row.lease_pid) && age < LOCAL_LEASE_MS;
  return age < LEASE_MS;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A killed process its parent has not reaped yet (a zombie) still answers signal 0.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (macOS, Windows): signal 0 is all we know
  }
}
