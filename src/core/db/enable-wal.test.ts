import { spawn } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { useTempDir } from '../../../test/support/temp-dir';
import { enableWal } from './open-database';

const tempDir = useTempDir();

it('switches a new tasks.db to WAL once the process holding it lets go, instead of failing with SQLITE_BUSY', async () => {
  const file = path.join(tempDir(), 'tasks.db');
  const setup = new Database(file);
  setup.exec('CREATE TABLE t (x)');
  setup.close();
  // Another process reads the new (rollback-journal) file for a moment: the switch needs
  // the exclusive lock, as when several processes open a new contexts folder at once.
  const holder = spawn(
    process.execPath,
    [
      '-e',
      `const db = new (require('better-sqlite3'))(${JSON.stringify(file)});
       db.exec('BEGIN'); db.prepare('SELECT count(*) FROM t').get();
       console.log('locked');
       setTimeout(() => { db.exec('COMMIT'); db.close(); }, 400);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
  const db = new Database(file);
  // A short wait per attempt stands in for the deadlock, where SQLite does not wait at all.
  db.pragma('busy_timeout = 20');
  try {
    enableWal(db);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
  } finally {
    db.close();
    await new Promise((resolve) => holder.once('exit', resolve));
  }
});
