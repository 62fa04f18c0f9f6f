import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { realFixture } from './real-fixtures';

/** The hand-written Cline SDK session (test/fixtures/real/cline-sdk) and its spawn_agent child. */
export const CLINE_SDK_ROOT = '1795597200000_q7m2x';
export const CLINE_SDK_FILES = [`${CLINE_SDK_ROOT}.messages.json`, 'explorer_7f2a.messages.json'];

/**
 * Lays Cline's data folder out as `<home>/.cline/data` (sessions/, and db/sessions.db built
 * from the fixture's SQL unless `withDb` is false); returns the data folder.
 */
export function layClineSdkData(home: string, withDb = true): string {
  const fixture = realFixture('cline-sdk', 'data');
  const data = path.join(home, '.cline', 'data');
  fs.cpSync(path.join(fixture, 'sessions'), path.join(data, 'sessions'), { recursive: true });
  if (withDb) {
    fs.mkdirSync(path.join(data, 'db'), { recursive: true });
    const db = new Database(path.join(data, 'db', 'sessions.db'));
    db.exec(fs.readFileSync(path.join(fixture, 'db', 'sessions.sql'), 'utf8'));
    db.close();
  }
  return data;
}
