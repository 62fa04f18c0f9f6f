import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { StoreUnavailable } from '../sources/sync-store';
import { openForeignDatabase } from './foreign-database';
import { REPO_ROOT } from '../../../test/support/run-ts';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();
const hash = (file: string): string =>
  fs.existsSync(file)
    ? crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')
    : 'none';

/** A WAL database whose writer wrote 200 rows without checkpointing and was then SIGKILLed. */
async function walLeftByKilledWriter(file: string): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const D = require('better-sqlite3'); const db = new D(process.argv[1]);
       db.pragma('journal_mode = WAL'); db.pragma('wal_autocheckpoint = 0');
       db.exec('CREATE TABLE t (x TEXT)');
       for (let i = 0; i < 200; i++) db.prepare('INSERT INTO t VALUES (?)').run('row ' + i);
       process.stdout.write('ready\\n'); setInterval(() => {}, 1000);`,
      file,
    ],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
}

describe('another program’s database', () => {
  it('is read with what its WAL holds, and closing it never checkpoints nor removes that WAL', async () => {
    const file = path.join(tempDir(), 'agent.db');
    await walLeftByKilledWriter(file);
    const before = [hash(file), hash(`${file}-wal`)];
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(0);
    const db = openForeignDatabase(file);
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 200 });
    expect(() => db.exec("INSERT INTO t VALUES ('mine')")).toThrow(/readonly/);
    db.close();
    // The last connection closed: a writable one would have checkpointed and deleted the WAL.
    expect([hash(file), hash(`${file}-wal`)]).toEqual(before);
  });

  it('is never created, and one not readable yet is StoreUnavailable', () => {
    const dir = tempDir();
    expect(() => openForeignDatabase(path.join(dir, 'none.db'))).toThrow();
    expect(fs.readdirSync(dir)).toEqual([]);
    const half = path.join(dir, 'half.db');
    fs.writeFileSync(half, 'SQLite format 3\0' + 'x'.repeat(50));
    expect(() => openForeignDatabase(half)).toThrow(StoreUnavailable);
  });
});
