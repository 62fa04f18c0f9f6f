import fs from 'node:fs';
import path from 'node:path';
import { badInput } from '../errors';
import { StoreUnavailable } from '../sources/sync-store';
import { claimingFormat, type DatabaseFormat } from './database-format';
import { kiloDatabaseFormat, opencodeDatabaseFormat } from './opencode-db';
import { crushDatabaseFormat } from './crush-db';
import { gooseDatabaseFormat } from './goose-db';
import { clineSdkDatabaseFormat } from './cline-sdk-db';
import { zedDatabaseFormat } from './zed-db';

/** The agents whose sessions `cwb import` reads from an SQLite database (one line each). */
export const DATABASE_FORMATS = {
  opencode: opencodeDatabaseFormat,
  kilo: kiloDatabaseFormat,
  crush: crushDatabaseFormat,
  goose: gooseDatabaseFormat,
  // Cline's SDK store: `cwb import sessions.db` imports every session's messages file.
  cline: clineSdkDatabaseFormat,
  zed: zedDatabaseFormat,
} as const satisfies Record<string, DatabaseFormat>;

export type DatabaseFormatName = keyof typeof DATABASE_FORMATS;

export function isDatabaseFormatName(name: string): name is DatabaseFormatName {
  return Object.hasOwn(DATABASE_FORMATS, name);
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** Whether a file's first bytes are SQLite's header. */
export function isSqliteHead(head: Buffer): boolean {
  return (
    head.length >= SQLITE_MAGIC.length && head.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)
  );
}

export async function isSqliteFile(file: string): Promise<boolean> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const head = Buffer.alloc(SQLITE_MAGIC.length);
    await handle.read(head, 0, head.length, 0);
    return isSqliteHead(head);
  } finally {
    await handle.close();
  }
}

/** Whose session store an SQLite file is, from its tables; a clear error when nobody's. */
export function detectDatabase(file: string): DatabaseFormatName {
  let found: DatabaseFormatName | undefined;
  try {
    found = claimingFormat(DATABASE_FORMATS, file);
  } catch (err) {
    if (err instanceof StoreUnavailable) throw badInput(err.message);
    throw err;
  }
  if (found !== undefined) return found;
  throw badInput(
    `${path.basename(file)}: an SQLite database, but not a session store this version reads (${Object.keys(DATABASE_FORMATS).join(', ')}); pass --format`,
  );
}
