/**
 * Session formats whose store is an SQLite database holding many sessions (opencode.db,
 * kilo.db, crush.db, Goose's sessions.db, Zed's threads.db). `cwb import` of such a file
 * imports every session in it; a source syncs each session as a source of its own
 * (src/core/sources/sync-store.ts). The database is only ever opened read-only
 * (src/core/db/foreign-database.ts).
 */
import type Database from 'better-sqlite3';
import path from 'node:path';
import { openForeignDatabase, readForeign, tableNames } from '../db/foreign-database';
import type { SessionStore, StoreSession } from '../sources/sync-store';
import type { AgentId, SessionEvent, SessionFormat } from './session-format';

export type ForeignDb = Database.Database;

export interface DatabaseFormatSpec {
  agent: AgentId;
  /** The tables (and file name) say the database is this agent's store. */
  claims(tables: ReadonlySet<string>, fileName: string): boolean;
  /** Every session with its newest update and record count (read in one transaction). */
  sessions(db: ForeignDb): StoreSession[];
  /**
   * One session's events; its rows are read in one transaction before they are mapped.
   * Unless `final`, a reply still being written is left out (see SessionStore.events).
   */
  events(db: ForeignDb, id: string, final: boolean, file: string): Iterable<SessionEvent>;
}

export interface DatabaseFormat extends SessionFormat {
  readonly input: 'database';
  readonly spec: DatabaseFormatSpec;
}

export function databaseFormat(spec: DatabaseFormatSpec): DatabaseFormat {
  return {
    agent: spec.agent,
    input: 'database',
    spec,
    sniff: (tables, fileName) => tables instanceof Set && spec.claims(tables, fileName),
    async *parse(file) {
      const store = databaseStore(spec, file);
      try {
        for (const session of store.sessions()) yield* store.events(session.id, true);
      } finally {
        store.close();
      }
    },
  };
}

/** A database opened read-only as a SessionStore. */
export function databaseStore(spec: DatabaseFormatSpec, file: string): SessionStore {
  const db = openForeignDatabase(file);
  return {
    sessions: () => readForeign(file, () => db.transaction(() => spec.sessions(db))()),
    async *events(id, final) {
      const events = readForeign(file, () =>
        db.transaction(() => [...spec.events(db, id, final, file)])(),
      );
      yield* events;
    },
    close: () => db.close(),
  };
}

/** The database formats among `formats` that claim a file (an SQLite file's tables). */
export function claimingFormat<T extends string>(
  formats: Record<T, SessionFormat>,
  file: string,
): T | undefined {
  let tables: Set<string>;
  const db = openForeignDatabase(file);
  try {
    tables = tableNames(db);
  } finally {
    db.close();
  }
  for (const [name, format] of Object.entries(formats) as [T, SessionFormat][])
    if (format.input === 'database' && format.sniff(tables, path.basename(file))) return name;
  return undefined;
}

/** JSON of a `data` column, or undefined (reported by the caller) when it does not parse. */
export function parseJsonColumn(text: unknown): Record<string, unknown> | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
