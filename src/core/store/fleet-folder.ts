import fs from 'node:fs';
import type { PgTaskRepository } from '../db/pg-task-repository';
import { CwbError } from '../errors';
import { FOLDER_ID_FILE, readFolderIdentity } from './folder-identity';
import { listTaskFolders } from './recovery';

/**
 * A contexts folder joining a fleet index (docs/fleet.md), in one write transaction:
 * - a folder whose id another host registered is a copy (or this host was renamed):
 *   refused, since both would reconcile the same rows; so is a copy on this host whose
 *   original is still where it was registered (a folder that moved just moves);
 * - rows this host wrote before folders had ids (schema v4) become this folder's: those
 *   whose task folders it holds, or all of them when the host's lease named this folder;
 * - the folder's lease starts.
 */
export function joinFleetFolder(index: PgTaskRepository, root: string, leaseMs: number): void {
  const id = index.folderId;
  if (!id) throw new Error('joinFleetFolder: the index serves no contexts folder');
  index.write(() => {
    const known = index.registeredFolder(id);
    if (known && known.host !== index.host) {
      throw new CwbError(
        'conflict',
        `the contexts folder ${root} has the id of a folder of host ${known.host} (${known.contexts_root}, last seen ${known.last_seen}); this host is ${index.host}. ` +
          `A copied folder would reconcile ${known.host}'s rows as its own. If it is a copy, remove ${root}/${FOLDER_ID_FILE} so it becomes a folder of its own ` +
          `(tasks ${known.host} indexes stay ${known.host}'s); if this host took over the folder for good, run cwb here with CWB_HOST=${known.host} (and stop cwb on ${known.host}).`,
      );
    }
    if (known && known.contexts_root !== root && sameFolderAt(known.contexts_root, id)) {
      throw new CwbError(
        'conflict',
        `the contexts folder ${root} is a copy of ${known.contexts_root} (the same id, ${id}), which is still there; ` +
          `remove ${root}/${FOLDER_ID_FILE} so the copy becomes a folder of its own, or open ${known.contexts_root} instead.`,
      );
    }
    const before = index.hostRowsWithoutFolder();
    if (before.any) {
      index.adoptHostRows(before.contextsRoot === root ? 'all' : [...listTaskFolders(root).keys()]);
    }
    index.heartbeat(root, leaseMs);
  });
}

/** Whether `root` is still a contexts folder with id `id` (the original of a copy). */
function sameFolderAt(root: string, id: string): boolean {
  try {
    return fs.existsSync(root) && readFolderIdentity(root)?.id === id;
  } catch {
    return false;
  }
}
