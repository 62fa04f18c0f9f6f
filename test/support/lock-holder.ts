import { spawn } from 'node:child_process';
import { REPO_ROOT } from './run-ts';

/**
 * Another program writing an SQLite database: a process that holds it under an exclusive
 * lock (a rollback journal, a write in an open transaction) until `release` commits and it
 * exits. Resolves once the lock is held.
 */
export async function holdDatabaseLock(file: string): Promise<{ release(): Promise<void> }> {
  const holder = spawn(
    process.execPath,
    [
      '-e',
      `const D = require('better-sqlite3'); const db = new D(process.argv[1]);
       db.pragma('journal_mode = DELETE'); db.exec('BEGIN EXCLUSIVE');
       db.exec('CREATE TABLE lock_holder_write (x)');
       process.stdout.write('locked\\n');
       process.stdin.on('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });`,
      file,
    ],
    { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => holder.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    holder.stdout.once('data', () => resolve());
    holder.once('exit', (code) => reject(new Error(`the lock holder exited (${code})`)));
  });
  return {
    async release() {
      holder.stdin.write('go\n');
      await exited;
    },
  };
}
