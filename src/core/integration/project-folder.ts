import fs from 'node:fs';
import path from 'node:path';
import { CwbError } from '../errors';

/**
 * The project folder a request names (Settings › Agent integration, scope project; over
 * HTTP it comes from a browser): absolute, written without `.` or `..` parts, an existing
 * folder. Returned as given.
 */
export function checkedProjectFolder(folder: string): string {
  const trimmed = folder.length > 1 ? folder.replace(/[\\/]+$/, '') : folder;
  if (!path.isAbsolute(trimmed) || path.resolve(trimmed) !== trimmed)
    throw new CwbError(
      'bad_input',
      `project folder ${JSON.stringify(folder)}: write it as an absolute path without "." or ".." parts`,
    );
  let stat: fs.Stats;
  try {
    stat = fs.statSync(trimmed);
  } catch {
    throw new CwbError('not_found', `project folder ${trimmed} does not exist`);
  }
  if (!stat.isDirectory())
    throw new CwbError('bad_input', `project folder ${trimmed} is not a folder`);
  if (path.dirname(trimmed) === trimmed)
    throw new CwbError('bad_input', `project folder ${trimmed}: the root is not a project`);
  return trimmed;
}

/**
 * Refuses to write `file` through a symbolic link: a link of the project (`.claude` → some
 * other folder) would carry the write out of the folder the user named, and writing a
 * linked settings file atomically would replace the user's link by a plain file. `inside`
 * (the project folder) also bounds where the file's real folder may be.
 */
export function checkNoLinks(file: string, inside?: string): void {
  const link = lstatOf(file);
  if (link?.isSymbolicLink())
    throw new CwbError(
      'bad_input',
      `${file} is a symbolic link (to ${fs.readlinkSync(file)}): it was left alone; edit the file it points to by hand or with cwb hooks install`,
    );
  if (inside === undefined) return;
  let existing = file;
  while (!lstatOf(existing) && path.dirname(existing) !== existing)
    existing = path.dirname(existing);
  const root = fs.realpathSync(inside);
  let real: string;
  try {
    real = fs.realpathSync(existing);
  } catch {
    real = '(a link that leads nowhere)';
  }
  if (real !== root && !real.startsWith(root + path.sep))
    throw new CwbError(
      'bad_input',
      `${file}: ${existing} leads out of the project folder ${inside} (to ${real}); nothing was written`,
    );
}

function lstatOf(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}
