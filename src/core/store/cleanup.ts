import fs from 'node:fs';
import path from 'node:path';
import type { ContextStore } from './context-store';
import { isoTimestamp } from '../iso-timestamp';

export interface CleanupCandidate {
  uuid: string;
  status: string;
  completed_at: string;
  title: string | null;
}

export interface CleanupResult {
  cutoff: string;
  dryRun: boolean;
  removed: CleanupCandidate[];
}

const TRASH = '.trash';

/**
 * Removes completed and failed tasks that ended more than `days` ago, from tasks.db and the
 * disk together (seed 000 §8.3). Each folder is first renamed into .trash/ in the same
 * transaction that deletes its row, so a crash never leaves a row without its folder; the
 * trash is emptied after the commit (and on the next cleanup if a crash got in between).
 */
export function cleanupTasks(
  store: ContextStore,
  options: { days: number; dryRun?: boolean; now?: Date },
): CleanupResult {
  const now = options.now ?? new Date();
  const cutoff = isoTimestamp(new Date(now.getTime() - options.days * 86_400_000));
  const candidates: CleanupCandidate[] = store.repo.endedBefore(cutoff).map((row) => ({
    uuid: row.uuid,
    status: row.status,
    completed_at: row.completed_at ?? '',
    title: row.title,
  }));
  if (options.dryRun) return { cutoff, dryRun: true, removed: candidates };
  const trash = path.join(store.root, TRASH);
  fs.mkdirSync(trash, { recursive: true });
  for (const task of candidates) {
    store.repo.write(() => {
      const row = store.repo.get(task.uuid);
      if (!row) return;
      const dir = store.taskPath(row);
      if (fs.existsSync(dir)) fs.renameSync(dir, path.join(trash, `${task.uuid}-${Date.now()}`));
      store.repo.delete(task.uuid);
    });
  }
  emptyTrash(store.root);
  return { cutoff, dryRun: false, removed: candidates };
}

export function emptyTrash(root: string): void {
  const trash = path.join(root, TRASH);
  if (!fs.existsSync(trash)) return;
  for (const name of fs.readdirSync(trash))
    fs.rmSync(path.join(trash, name), { recursive: true, force: true });
}
