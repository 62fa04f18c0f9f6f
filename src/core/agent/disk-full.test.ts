import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { diskFullReason, isDiskFull, labelDiskFull, pausedByFullDisk } from './disk-full';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

/** A real SQLITE_FULL: a database capped at a few pages, filled past them. */
function sqliteFull(): unknown {
  const db = new Database(path.join(tempDir(), 'tasks.db'));
  try {
    db.exec('CREATE TABLE t (x BLOB)');
    db.pragma('max_page_count = 4');
    db.prepare('INSERT INTO t VALUES (?)').run(Buffer.alloc(64 * 1024));
  } catch (err) {
    return err;
  } finally {
    db.close();
  }
  throw new Error('expected SQLITE_FULL');
}

function enospc(withPath?: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error('ENOSPC: no space left on device, write');
  err.code = 'ENOSPC';
  err.syscall = 'write';
  if (withPath) err.path = withPath;
  return err;
}

describe('full-disk errors', () => {
  it('tells SQLITE_FULL and ENOSPC (also as a cause) from other errors, and names the file', () => {
    const full = sqliteFull();
    expect((full as { code?: string }).code).toBe('SQLITE_FULL');
    expect(diskFullReason(full)).toBe('the disk is full (no space left writing tasks.db)');
    expect(diskFullReason(enospc('/t/messages.jsonl'))).toBe(
      'the disk is full (no space left writing /t/messages.jsonl)',
    );
    expect(diskFullReason(new Error('wrapped', { cause: enospc() }))).toBe(
      'the disk is full (no space left on device)',
    );
    expect(isDiskFull(new Error('ENOENT: no such file or directory'))).toBe(false);
    expect(isDiskFull('ENOSPC')).toBe(false);
    expect(pausedByFullDisk(diskFullReason(full)!)).toBe(
      'the disk is full (no space left writing tasks.db): the task was paused; free some space and resume it',
    );
  });

  it('labels a write error that has no path, and keeps a path the error has', () => {
    const bare = enospc();
    labelDiskFull(bare, '/t/request.json');
    expect(diskFullReason(bare)).toMatch(/writing \/t\/request\.json\)$/);
    const named = enospc('/t/current.jsonl');
    labelDiskFull(named, '/t/request.json');
    expect(named.path).toBe('/t/current.jsonl');
    const other = new Error('boom');
    labelDiskFull(other, '/t/request.json');
    expect(other).not.toHaveProperty('path');
  });

  it('a read-only disk (EROFS, SQLITE_READONLY) and a quota (EDQUOT) are handled the same way, each with its own advice', () => {
    const erofs = Object.assign(new Error("EROFS: read-only file system, open '/t/x'"), {
      code: 'EROFS',
      path: '/t/x',
    });
    expect(diskFullReason(erofs)).toBe('the contexts folder is read-only (EROFS writing /t/x)');
    expect(pausedByFullDisk(diskFullReason(erofs)!)).toBe(
      'the contexts folder is read-only (EROFS writing /t/x): the task was paused; make it writable again and resume it',
    );
    const readonlyDb = Object.assign(new Error('attempt to write a readonly database'), {
      code: 'SQLITE_READONLY',
    });
    expect(diskFullReason(readonlyDb)).toBe(
      'the contexts folder is read-only (SQLITE_READONLY writing tasks.db)',
    );
    const quota = Object.assign(new Error('EDQUOT: disk quota exceeded, write'), {
      code: 'EDQUOT',
    });
    labelDiskFull(quota, '/t/messages.jsonl');
    expect(diskFullReason(quota)).toBe(
      'the disk is full (no space left writing /t/messages.jsonl)',
    );
    expect(isDiskFull(Object.assign(new Error('EACCES'), { code: 'EACCES' }))).toBe(false);
  });
});
