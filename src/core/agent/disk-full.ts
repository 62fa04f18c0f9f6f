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

/** The error itself, or one of its causes, that says the disk is full; undefined when none does. */
function fullDiskError(err: unknown): ErrorLike | undefined {
  for (let e = err, depth = 0; depth < 5 && e !== null && typeof e === 'object'; depth++) {
    const { code, message, cause } = e as ErrorLike;
    // ENOSPC from the file system; SQLITE_FULL from tasks.db (also its -wal and -shm files).
    if (code === 'ENOSPC' || code === 'SQLITE_FULL') return e as ErrorLike;
    if (typeof message === 'string' && /\bENOSPC\b|no space left on device/i.test(message))
      return e as ErrorLike;
    e = cause;
  }
  return undefined;
}

export function isDiskFull(err: unknown): boolean {
  return fullDiskError(err) !== undefined;
}

/**
 * Names the file a full-disk error hit when the error does not say (a write on an open file
 * descriptor has no path): `err.path` is set, nothing else changes.
 */
export function labelDiskFull(err: unknown, file: string): void {
  const e = fullDiskError(err);
  if (e && e.code === 'ENOSPC' && typeof e.path !== 'string') e.path = file;
}

/** "the disk is full (no space left writing <file>)", or undefined when `err` is not about a full disk. */
export function diskFullReason(err: unknown): string | undefined {
  const e = fullDiskError(err);
  if (!e) return undefined;
  const file =
    typeof e.path === 'string' ? e.path : e.code === 'SQLITE_FULL' ? 'tasks.db' : undefined;
  return file === undefined
    ? 'the disk is full (no space left on device)'
    : `the disk is full (no space left writing ${file})`;
}

/** What a task paused by a full disk says, in its row and to the host. */
export function pausedByFullDisk(reason: string): string {
  return `${reason}: the task was paused; free some space and resume it`;
}

/** What is said when even pausing failed (tasks.db could not be written either). */
export function notPausedByFullDisk(reason: string): string {
  return `${reason}: the task could not be paused either; free some space and resume it`;
}
