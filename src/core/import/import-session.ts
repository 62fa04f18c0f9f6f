import fs from 'node:fs';
import type { TaskRow } from '../../shared/task-types';
import type { ContextStore } from '../store/context-store';
import type { TaskContextManager } from '../store/task-context-manager';
import { importTask, type ImportTaskInput, type ImportedCounters } from '../store/task-import';

/**
 * One task being imported, open for writing while the importer streams its source. It
 * wraps `importTask` so that several tasks can be written at once from one pass over a
 * file (Claude Code subagents interleave with the main thread): `importTask` keeps its
 * all-or-nothing guarantee for each of them.
 */
export interface ImportSession {
  readonly task: TaskContextManager;
  /** Ends the task with the importer's counters; resolves with its row. */
  finish(counters: ImportedCounters): Promise<TaskRow>;
  /** Gives up: `importTask` removes the half-written task. Never rejects. */
  abort(reason: unknown): Promise<void>;
}

export async function beginImport(
  store: ContextStore,
  input: ImportTaskInput,
): Promise<ImportSession> {
  let release!: (counters: ImportedCounters) => void;
  let fail!: (reason: unknown) => void;
  const gate = new Promise<ImportedCounters>((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  let opened!: (task: TaskContextManager) => void;
  const whenOpen = new Promise<TaskContextManager>((resolve) => (opened = resolve));
  const done = importTask(store, input, (task) => {
    opened(task);
    return gate;
  });
  // importTask may fail before it hands over the task (e.g. the uuid exists already).
  const task = await Promise.race([
    whenOpen,
    done.then(() => {
      throw new Error('importTask ended before the importer wrote anything');
    }),
  ]);
  return {
    task,
    finish: (counters) => {
      release(counters);
      return done;
    },
    abort: async (reason) => {
      fail(reason);
      await done.catch(() => undefined);
    },
  };
}

/**
 * Removes a task an import already finished, when a later part of the same source fails:
 * a file is imported whole or not at all. Same steps as importTask's own cleanup.
 */
export function discardImportedTask(store: ContextStore, uuid: string): void {
  const row = store.repo.get(uuid);
  if (!row) return;
  store.repo.write(() => {
    store.repo.delete(uuid);
    fs.rmSync(store.taskPath(row), { recursive: true, force: true });
  });
}
