import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { StatusFolder, TaskStatus } from '../../shared/task-types';
import { isTaskUuid } from '../../shared/uuid';
import { recoverTornTail } from '../jsonl/torn-tail';
import {
  JSONL_FILES,
  REQUEST_FILE,
  STAGING_NAME,
  STATUS_FOLDERS,
  TASK_FILES,
  statusFolder,
  taskDir,
} from './contexts-layout';
import { readMetadata } from './task-metadata';
import { countLines } from './count-lines';
import type { ContextStore } from './context-store';
import { MessageStore } from './message-store';
import { isoTimestamp } from '../iso-timestamp';

export interface TornLine {
  file: string;
  bytes: number;
  corruptPath: string;
}

export interface RecoveryReport {
  /** Tasks marked running whose process is gone: now failed with "interrupted" (resumable). */
  interrupted: string[];
  /** Folders found under another status than their row says, moved to where the row says. */
  moved: { uuid: string; from: StatusFolder; to: StatusFolder }[];
  /** Rows whose folder is gone: removed from tasks.db. */
  rowsWithoutFolder: string[];
  /** Folders without a row: indexed again from metadata.json and their files. */
  foldersWithoutRow: string[];
  /** Partial last lines moved aside into `.corrupt` files. */
  tornLines: TornLine[];
  /**
   * Fleet index: task folders whose row belongs to another contexts folder (this folder
   * holds a copy of them): left alone, never indexed twice. Absent when there are none.
   */
  heldElsewhere?: string[];
}

export function emptyReport(): RecoveryReport {
  return {
    interrupted: [],
    moved: [],
    rowsWithoutFolder: [],
    foldersWithoutRow: [],
    tornLines: [],
  };
}

export function reportIsClean(r: RecoveryReport): boolean {
  return (
    !r.interrupted.length &&
    !r.moved.length &&
    !r.rowsWithoutFolder.length &&
    !r.foldersWithoutRow.length &&
    !r.tornLines.length
  );
}

/** Moves torn last lines of a task's JSONL files aside. Only the task's writer may call this. */
export function recoverTaskFiles(dir: string): TornLine[] {
  const torn: TornLine[] = [];
  for (const name of JSONL_FILES) {
    const file = path.join(dir, name);
    if (!fs.existsSync(file)) continue;
    const result = recoverTornTail(file);
    if (result.recovered) torn.push({ file, bytes: result.bytes, corruptPath: result.corruptPath });
  }
  return torn;
}

/** True when the process that drove a task may still be alive (other hosts are assumed alive). */
export function ownerAlive(pid: number | null, hostname: string | null): boolean {
  if (hostname && hostname !== os.hostname()) return true;
  if (!pid) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Makes tasks.db and the folders agree (on a fleet index: this contexts folder's rows
 * only, PgTaskRepository.allStatuses, so no folder ever touches another's rows), under the write lock so no other process is half
 * way through a create or a move while we look. tasks.db decides a task's status; its
 * folder follows. Dead running tasks become failed ("interrupted") and stay resumable.
 */
export function reconcile(store: ContextStore): RecoveryReport {
  const report = emptyReport();
  store.repo.write(() => {
    removeDeadStagingFolders(store.root);
    const rows = store.repo.allStatuses();
    const folders = listTaskFolders(store.root);
    for (const [uuid, row] of rows) {
      const found = folders.get(uuid);
      const expected = statusFolder(row.status);
      if (!found) {
        store.repo.delete(uuid);
        report.rowsWithoutFolder.push(uuid);
        continue;
      }
      if (found !== expected) {
        fs.renameSync(taskDir(store.root, found, uuid), taskDir(store.root, expected, uuid));
        report.moved.push({ uuid, from: found, to: expected });
      }
      if (row.status === 'running' && !ownerAlive(row.process_id, row.hostname)) {
        markInterrupted(store, uuid, report);
      }
    }
    for (const [uuid, folder] of folders) {
      if (rows.has(uuid)) continue;
      // allStatuses is this folder's rows; on a fleet index another folder may hold the
      // task (this one has a copy of it): its row stays that folder's.
      if (store.repo.get(uuid)) {
        (report.heldElsewhere ??= []).push(uuid);
        continue;
      }
      reindexFolder(store, uuid, folder, report);
    }
  });
  return report;
}

function markInterrupted(store: ContextStore, uuid: string, report: RecoveryReport): void {
  const dir = store.move({ uuid, status: 'running' }, 'failed');
  report.tornLines.push(...recoverTaskFiles(dir));
  // The dead process's request body, as large as its context: a resumed run writes a new one.
  fs.rmSync(path.join(dir, REQUEST_FILE), { force: true });
  // Counters may have missed the last events before the crash: take them from the files.
  store.repo.setFinalStats(uuid, statisticsFromFiles(dir));
  store.repo.setStatus(uuid, 'failed', {
    error_message: 'interrupted: the task process ended without finishing the task',
  });
  report.interrupted.push(uuid);
}

function reindexFolder(
  store: ContextStore,
  uuid: string,
  folder: StatusFolder,
  report: RecoveryReport,
): void {
  const status: TaskStatus = folder === 'running' ? 'failed' : folder;
  const dir = store.move({ uuid, status: folder }, status);
  report.tornLines.push(...recoverTaskFiles(dir));
  const meta = readMetadata(dir) ?? {};
  const key = meta.task_key ?? { task_source: '', owner: '', repo: '', task_type: '', task_id: '' };
  store.repo.insert({
    uuid,
    key: { ...key, user: meta.user ?? '' },
    status,
    title: meta.title ?? null,
    prompt: meta.prompt ?? null,
    workdir: meta.workdir ?? null,
    parent_uuid: meta.parent_uuid ?? null,
    llm_provider: meta.config?.llm_provider ?? null,
    model: meta.config?.model ?? null,
    context_length: meta.config?.context_length ?? null,
    created_at: meta.created_at ?? isoTimestamp(fs.statSync(dir).mtime),
  });
  store.repo.setFinalStats(uuid, statisticsFromFiles(dir));
  store.repo.setStatus(
    uuid,
    status,
    status === 'failed' ? { error_message: 'interrupted: re-indexed from its folder' } : {},
  );
  report.foldersWithoutRow.push(uuid);
}

function statisticsFromFiles(dir: string): {
  total_messages: number;
  total_summaries: number;
  total_tool_calls: number;
  final_token_count: number;
  final_message_count: number;
} {
  const messages = MessageStore.open(dir, { readonly: true });
  try {
    return {
      total_messages: messages.count,
      total_summaries: countLines(path.join(dir, TASK_FILES.summaries)),
      total_tool_calls: countLines(path.join(dir, TASK_FILES.tools)),
      final_token_count: messages.currentTokenCount(),
      final_message_count: messages.currentCount(),
    };
  } finally {
    messages.close();
  }
}

/**
 * Removes the staging folders (stageHistoryTask) of processes that are gone: a task they
 * were making whose row was never written. A live process's staging folder is its own.
 */
function removeDeadStagingFolders(root: string): void {
  for (const folder of STATUS_FOLDERS) {
    for (const name of namesIn(path.join(root, folder))) {
      const match = STAGING_NAME.exec(name);
      if (match && !ownerAlive(Number(match[2]), null))
        fs.rmSync(path.join(root, folder, name), { recursive: true, force: true });
    }
  }
}

/** A folder's entries; none when it cannot be read. */
function namesIn(folder: string): string[] {
  try {
    return fs.readdirSync(folder);
  } catch {
    return [];
  }
}

/** uuid → the status folder it sits in. Entries that are not task folders are left alone. */
export function listTaskFolders(root: string): Map<string, StatusFolder> {
  const found = new Map<string, StatusFolder>();
  for (const folder of STATUS_FOLDERS)
    for (const name of namesIn(path.join(root, folder)))
      if (isTaskUuid(name)) found.set(name, folder);
  return found;
}
