import fs from 'node:fs';

// Platforms that cannot open or fsync a directory (Windows) report one of these; there the
// rename itself is as durable as the OS allows, so nothing more can be done.
const UNSUPPORTED = new Set(['EISDIR', 'EPERM', 'EINVAL', 'EACCES']);

/**
 * Makes a directory entry change (a new file, a rename) survive power loss: on Linux a file's
 * own fsync does not persist the entry that names it.
 */
export function fsyncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = fs.openSync(dir, 'r');
  } catch (error) {
    if (isUnsupported(error)) return;
    throw error;
  }
  try {
    fs.fsyncSync(fd);
  } catch (error) {
    if (!isUnsupported(error)) throw error;
  } finally {
    fs.closeSync(fd);
  }
}

function isUnsupported(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && UNSUPPORTED.has(code);
}
