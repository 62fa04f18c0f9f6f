import os from 'node:os';
import path from 'node:path';
import { databaseStore } from '../import/database-format';
import { kiloDatabaseFormat, opencodeDatabaseFormat } from '../import/opencode-db';
import { opencodeStorageStore } from '../import/opencode-storage';
import type { SourceKind } from './source-kinds';

/** `$XDG_DATA_HOME` or `~/.local/share`: where opencode and Kilo CLI keep their data on every platform (xdg-basedir). */
export function xdgData(env: NodeJS.ProcessEnv): string {
  return env.XDG_DATA_HOME ?? path.join(env.HOME ?? os.homedir(), '.local', 'share');
}

/**
 * opencode: `opencode.db` (and `opencode-<channel>.db`) in its data folder, read-only, each
 * session a source of its own; and the older JSON storage's session files
 * (`storage/session/<project>/ses_*.json`), each read with its message and part files.
 * Depth 1 keeps discovery out of `storage/part/` (a folder per message).
 */
export const opencodeSourceKind: SourceKind = {
  id: 'opencode',
  label: 'opencode',
  defaultFolders: (env) => {
    const data = path.join(xdgData(env), 'opencode');
    return [data, path.join(data, 'storage', 'session')];
  },
  matches: (rel) =>
    /^opencode(-[^/]+)?\.db$/.test(rel) ||
    /^(storage\/session\/)?[^/]+\/ses_[^/]+\.json$/.test(rel),
  depth: 1,
  reader: {
    mode: 'store',
    open: (file) =>
      file.endsWith('.json')
        ? opencodeStorageStore(file)
        : databaseStore(opencodeDatabaseFormat.spec, file),
  },
};

/** Kilo CLI (Kilo-Org/kilocode's CLI, opencode's code): `kilo.db` in `~/.local/share/kilo`. */
export const kiloSourceKind: SourceKind = {
  id: 'kilo',
  label: 'Kilo CLI',
  defaultFolders: (env) => [path.join(xdgData(env), 'kilo')],
  matches: (rel) => /^kilo(-[^/]+)?\.db$/.test(rel),
  depth: 0,
  reader: { mode: 'store', open: (file) => databaseStore(kiloDatabaseFormat.spec, file) },
};
