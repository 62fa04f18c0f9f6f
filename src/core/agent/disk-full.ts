/**
 * A full disk is not a task's fault and loses nothing (docs/reliability.md, "Full disk"):
 * the task process pauses the task instead of failing it. These helpers tell such an error
 * from others and say it in one line the user can act on.
 */

interface ErrorLike {
  code?: unknown;
  path?: unknown;
  message?: unknown;
  cause?: unknown;
}

/** What a disk that cannot take a write says: full (or over quota), or read-only. */
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);
const READ_ONLY_CODES = new Set(['EROFS', 'SQLITE_READONLY']);

/** The error itself, or one of its causes, that says the disk is full or read-only; undefined when none does. */
function fullDiskError(err: unknown): ErrorLike | undefined {
  for (let e = err, depth = 0; depth < 5 && e !== null && typeof e === 'object'; depth++) {
    const { code, message, cause } = e as ErrorLike;
    // ENOSPC/EDQUOT from the file system; SQLITE_FULL from tasks.db (also its -wal and -shm
    // files). EROFS: a disk the kernel remounted read-only (after an I/O error) — as with a
    // full one, nothing is lost and the task can go on once the disk is writable again.
    if (typeof code === 'string' && (FULL_CODES.has(code) || READ_ONLY_CODES.has(code)))
      return e as ErrorLike;
    if (
      typeof message === 'string' &&
      /\b(ENOSPC|EDQUOT|EROFS)\b|no space left on device|read-only file system/i.test(message)
    )
      return e as ErrorLike;
    e = cause;
  }
  return undefined;
}

function isReadOnly(e: ErrorLike): boolean {
  return (
    (typeof e.code === 'string' && READ_ONLY_CODES.has(e.code)) ||
    (typeof e.message === 'string' && /\bEROFS\b|read-only file system/i.test(e.message))
  );
}

const READ_ONLY_REASON = 'the contexts folder is read-only';

export function isDiskFull(err: unknown): boolean {
  return fullDiskError(err) !== undefined;
}

/**
 * Names the file a full-disk error hit when the error does not say (a write on an open file
 * descriptor has no path): `err.path` is set, nothing else changes.
 */
export function labelDiskFull(err: unknown, file: string): void {
  const e = fullDiskError(err);
  if (e && typeof e.code === 'string' && e.code.startsWith('E') && typeof e.path !== 'string')
    e.path = file;
}

/**
 * "the disk is full (no space left writing <file>)", "the contexts folder is read-only
 * (EROFS writing <file>)", or undefined when `err` is about neither.
 */
export function diskFullReason(err: unknown): string | undefined {
  const e = fullDiskError(err);
  if (!e) return undefined;
  const file =
    typeof e.path === 'string'
      ? e.path
      : e.code === 'SQLITE_FULL' || e.code === 'SQLITE_READONLY'
        ? 'tasks.db'
        : undefined;
  if (isReadOnly(e)) {
    const code = e.code === 'SQLITE_READONLY' ? 'SQLITE_READONLY' : 'EROFS';
    return file === undefined
      ? `${READ_ONLY_REASON} (${code})`
      : `${READ_ONLY_REASON} (${code} writing ${file})`;
  }
  return file === undefined
    ? 'the disk is full (no space left on device)'
    : `the disk is full (no space left writing ${file})`;
}

/** What to do about it, said after the reason. */
function advice(reason: string): string {
  return reason.startsWith(READ_ONLY_REASON)
    ? 'make it writable again and resume it'
    : 'free some space and resume it';
}

/** What a task paused by a full disk says, in its row and to the host. */
export function pausedByFullDisk(reason: string): string {
  return `${reason}: the task was paused; ${advice(reason)}`;
}

/** What is said when even pausing failed (tasks.db could not be written either). */
export function notPausedByFullDisk(reason: string): string {
  return `${reason}: the task could not be paused either; ${advice(reason)}`;
}
