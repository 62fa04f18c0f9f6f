import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where exports go when the UI names no place: ~/Downloads when it exists, else home. */
export function defaultExportDir(home = os.homedir()): string {
  const downloads = path.join(home, 'Downloads');
  return fs.existsSync(downloads) ? downloads : home;
}
