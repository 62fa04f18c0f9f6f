import os from 'node:os';
import path from 'node:path';
import { databaseStore } from '../import/database-format';
import { crushDatabaseFormat } from '../import/crush-db';
import { gooseDatabaseFormat } from '../import/goose-db';
import { gooseJsonlStore } from '../import/goose-jsonl';
import { zedDatabaseFormat } from '../import/zed-db';
import { xdgData } from './opencode-source';
import type { SourceKind } from './source-kinds';
import { storeUnit } from './sync-store';

const home = (env: NodeJS.ProcessEnv): string => env.HOME ?? os.homedir();

/** Goose's data folder per platform (etcetera's app strategy, `Block`/`goose`) + `/sessions`. */
function gooseFolders(env: NodeJS.ProcessEnv): string[] {
  if (process.platform === 'darwin')
    return [path.join(home(env), 'Library', 'Application Support', 'Block.goose', 'sessions')];
  if (process.platform === 'win32')
    return [
      path.join(
        env.APPDATA ?? path.join(home(env), 'AppData', 'Roaming'),
        'Block',
        'goose',
        'data',
        'sessions',
      ),
    ];
  return [path.join(xdgData(env), 'goose', 'sessions')];
}

/** Zed's data folder per platform (and Flatpak's) + `/threads`. */
function zedFolders(env: NodeJS.ProcessEnv): string[] {
  if (process.platform === 'darwin')
    return [path.join(home(env), 'Library', 'Application Support', 'Zed', 'threads')];
  if (process.platform === 'win32')
    return [
      path.join(env.LOCALAPPDATA ?? path.join(home(env), 'AppData', 'Local'), 'Zed', 'threads'),
    ];
  return [
    path.join(xdgData(env), 'zed', 'threads'),
    path.join(home(env), '.var', 'app', 'dev.zed.Zed', 'data', 'zed', 'threads'),
  ];
}

/**
 * Goose: `sessions.db` (one database of every session), and the older `<id>.jsonl` files
 * beside it (before 1.10; each a store of one session, left to sessions.db once Goose has
 * imported it there).
 */
export const gooseSourceKind: SourceKind = {
  id: 'goose',
  label: 'Goose',
  defaultFolders: gooseFolders,
  matches: (rel) => rel === 'sessions.db' || /^[^/]+\.jsonl$/.test(rel),
  depth: 0,
  // A session Goose 1.10+ imported from `<id>.jsonl` goes on from that file's tasks.
  earlierCopy: (unit) => {
    const at = unit.lastIndexOf('#');
    if (at < 0 || path.basename(unit.slice(0, at)) !== 'sessions.db') return undefined;
    const id = unit.slice(at + 1);
    return storeUnit(path.join(path.dirname(unit.slice(0, at)), `${id}.jsonl`), id);
  },
  reader: {
    mode: 'store',
    open: (file) =>
      file.endsWith('.jsonl')
        ? gooseJsonlStore(file)
        : databaseStore(gooseDatabaseFormat.spec, file),
  },
};

/** Zed's agent panel: `threads.db`, each thread a zstd-compressed JSON document. */
export const zedSourceKind: SourceKind = {
  id: 'zed',
  label: 'Zed',
  defaultFolders: zedFolders,
  matches: (rel) => rel === 'threads.db',
  depth: 0,
  reader: { mode: 'store', open: (file) => databaseStore(zedDatabaseFormat.spec, file) },
};

/**
 * Crush keeps a database in each project (`<project>/.crush/crush.db`): no default folder;
 * the working directories of the tasks already known are looked at on every full pass, and
 * `cwb sources add crush FOLDER` adds a project or a folder of projects.
 */
export const crushSourceKind: SourceKind = {
  id: 'crush',
  label: 'Crush',
  defaultFolders: () => [],
  matches: (rel) => /(^|\/)\.crush\/crush\.db$/.test(rel),
  depth: 2,
  inWorkdirs: '.crush/crush.db',
  reader: { mode: 'store', open: (file) => databaseStore(crushDatabaseFormat.spec, file) },
};
