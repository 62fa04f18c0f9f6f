import path from 'node:path';
import os from 'node:os';
import type { StatusFolder, TaskStatus } from '../../shared/task-types';
import { isTaskUuid } from '../../shared/uuid';
import { badInput } from '../errors';

/** The index of every task, at the top of the contexts root. */
export const DATABASE_FILE = 'tasks.db';

export const STATUS_FOLDERS: readonly StatusFolder[] = ['running', 'paused', 'completed'];

/** Failed tasks are kept beside completed ones (seed 000 §6.4). */
export function statusFolder(status: TaskStatus): StatusFolder {
  return status === 'failed' ? 'completed' : status;
}

/**
 * Where the contexts live when nothing says otherwise: the user's data folder
 * (XDG_DATA_HOME on Linux), never the current directory.
 */
export function defaultContextsRoot(env: NodeJS.ProcessEnv = process.env): string {
  const home = os.homedir();
  if (process.platform === 'darwin') {
    return path.join(home, 'Library', 'Application Support', 'Context Workbench', 'contexts');
  }
  if (process.platform === 'win32') {
    const base = env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local');
    return path.join(base, 'Context Workbench', 'contexts');
  }
  const base =
    env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME)
      ? env.XDG_DATA_HOME
      : path.join(home, '.local', 'share');
  return path.join(base, 'context-workbench', 'contexts');
}

/** Resolution order: --contexts flag, CWB_CONTEXTS, config base_dir, the default. */
export function resolveContextsRoot(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  fromConfig: string | null = null,
): string {
  const chosen = flag ?? env.CWB_CONTEXTS ?? fromConfig ?? defaultContextsRoot(env);
  if (chosen.includes('\0')) throw badInput('contexts folder: path contains a NUL byte');
  return path.resolve(chosen);
}

/** Validates a task id before it is joined to any path. */
export function assertTaskUuid(value: string): string {
  if (!isTaskUuid(value as unknown)) {
    const shown = JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
    throw badInput(
      `${shown} is not a task id (expected a lowercase UUID v4 like 550e8400-e29b-41d4-a716-446655440000)`,
    );
  }
  return value;
}

export function taskDir(root: string, folder: StatusFolder, uuid: string): string {
  return path.join(root, folder, assertTaskUuid(uuid));
}

/**
 * Where a new history task's folder is filled before it takes its place (stageHistoryTask):
 * a name no task folder has (recovery lists only UUIDs), with the maker's pid so that recovery
 * can remove one whose process is gone.
 */
export function stagingDir(root: string, folder: StatusFolder, uuid: string): string {
  return path.join(root, folder, `.new-${assertTaskUuid(uuid)}-${process.pid}`);
}

/** A staging folder's name: its uuid and the pid of the process that made it. */
export const STAGING_NAME = /^\.new-([0-9a-f-]{36})-(\d+)$/;

export const TASK_FILES = {
  metadata: 'metadata.json',
  messages: 'messages.jsonl',
  messagesIndex: 'messages.jsonl.idx',
  current: 'current.jsonl',
  summaries: 'summaries.jsonl',
  undone: 'undone.jsonl',
  tools: 'tools.jsonl',
  planning: 'planning.jsonl',
  finalSummary: 'final_summary.txt',
  toolOutputs: 'tool_outputs',
} as const;

/**
 * Not a task file (never exported): the body of the next model call (seed 000 §3.7), kept
 * while the task process runs so each call only adds what the context gained (issue #17).
 * A process killed mid-run leaves it behind.
 */
export const REQUEST_FILE = 'request.json';

/** JSONL files whose torn tails are recovered when a task is opened. */
export const JSONL_FILES = [
  TASK_FILES.messages,
  TASK_FILES.current,
  TASK_FILES.summaries,
  TASK_FILES.undone,
  TASK_FILES.tools,
  TASK_FILES.planning,
] as const;
