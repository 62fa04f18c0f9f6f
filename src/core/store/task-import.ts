import type { HourUsage } from '../usage/usage-hours';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { TaskRow, TokenUsage } from '../../shared/task-types';
import type { ContextStore, CreateTaskInput } from './context-store';
import type { TaskContextManager } from './task-context-manager';
import { statusFolder, taskDir } from './contexts-layout';
import { CwbError } from '../errors';
import { randomHex } from '../random-hex';

/** What an importer reports after writing a task's files: the figures tasks.db cannot count from files. */
export interface ImportedCounters {
  llm_calls: number;
  usage?: Partial<TokenUsage>;
  /**
   * Estimated tokens of every message written (chars/4, see countMessageTokens): the task's
   * total when the transcript records no usage, so a task with text never shows 0 tokens.
   */
  estimated_tokens?: number;
  /** The session's own times, known only once the whole source was read. */
  times?: { created_at: string; started_at: string; completed_at: string };
  /** The model, when only the messages named it. */
  model?: string;
  /** The usage by the hour of its messages, when the transcript has usage. */
  usage_hours?: HourUsage[];
}

/** The agent each importer's task_source stands for (tasks.agent, a filterable column). */
export const AGENT_OF_SOURCE: Record<string, string> = {
  'claude-code': 'claude-code',
  codex: 'codex',
  'openai-chat': 'openai',
  'swe-agent': 'swe-agent',
  'gemini-cli': 'gemini-cli',
  openhands: 'openhands',
  cline: 'cline',
  'roo-code': 'roo-code',
  aider: 'aider',
};

export interface ImportTaskInput extends CreateTaskInput {
  status: 'completed' | 'failed';
  created_at?: string;
  completed_at?: string;
  error_message?: string;
}

/**
 * Writes a task that ran somewhere else (another agent's transcript). The importer fills
 * the task's files through the manager's stores — `task.messages.append`, `task.tools.add`,
 * `task.summaries.add`, ... — without per-message DB writes; then one transaction sets the
 * row's counts from the files and the final status, and the folder moves to completed/.
 * If the importer throws, the half-written task is removed: an import is all or nothing.
 */
export async function importTask(
  store: ContextStore,
  input: ImportTaskInput,
  write: (task: TaskContextManager) => ImportedCounters | Promise<ImportedCounters>,
): Promise<TaskRow> {
  // Nothing reads the task before it is complete: its lines are written together.
  const task = store.createTask(input, { batched: true });
  let counters: ImportedCounters;
  let stats: ReturnType<TaskContextManager['statistics']>;
  try {
    counters = await write(task);
    stats = task.statistics();
    // Closing writes the lines still held: a failure there fails the import too.
    task.close();
  } catch (err) {
    try {
      task.close();
    } catch {
      // the import's own error is the one to report; the folder goes anyway
    }
    store.repo.write(() => {
      store.repo.delete(task.uuid);
      fs.rmSync(task.dir, { recursive: true, force: true });
    });
    throw err;
  }
  const usage = usageOrEstimate(counters);
  store.repo.write(() => {
    store.repo.addStats(task.uuid, {
      llm_calls: counters.llm_calls,
      tool_calls: stats.total_tool_calls,
      compressions: stats.total_summaries,
      ...(usage && { usage }),
    });
    if (counters.usage_hours) store.repo.addUsageHours(task.uuid, counters.usage_hours);
    // Message, summary and tool totals come from the files themselves.
    store.repo.setFinalStats(task.uuid, stats);
    store.repo.setStatus(task.uuid, input.status, {
      ...(input.error_message !== undefined && { error_message: input.error_message }),
      process_id: null,
      hostname: null,
    });
    store.move({ uuid: task.uuid, status: 'running' }, input.status);
    // The session's own times, not the import's: updated_at is when the session last changed.
    store.repo.setImportedFacts(task.uuid, {
      created_at: counters.times?.created_at ?? input.created_at ?? null,
      started_at: counters.times?.started_at ?? null,
      completed_at: counters.times?.completed_at ?? input.completed_at ?? null,
      model: counters.model ?? null,
      agent: AGENT_OF_SOURCE[input.key?.task_source ?? ''] ?? input.key?.task_source ?? '',
      git_branch: typeof input.source?.git_branch === 'string' ? input.source.git_branch : null,
    });
  });
  return store.requireTask(task.uuid);
}

/** Provider usage when the transcript had any, else the estimate of the text (total only). */
function usageOrEstimate(counters: ImportedCounters): Partial<TokenUsage> | undefined {
  const u = counters.usage;
  const total = u
    ? (u.total_tokens ??
      (u.input_tokens ?? 0) +
        (u.output_tokens ?? 0) +
        (u.cache_creation_tokens ?? 0) +
        (u.cache_read_tokens ?? 0))
    : 0;
  if (u && total > 0) return u;
  const estimate = counters.estimated_tokens ?? 0;
  return estimate > 0 ? { total_tokens: estimate } : u;
}

export type UuidConflict = 'keep-both' | 'replace';

/**
 * Restores a task exactly as it was elsewhere (our own archives): `fill` writes the task's
 * files into a staging folder, then one transaction inserts the row as given and moves the
 * folder into place. A uuid that exists already is either given a new uuid (keep-both) or
 * replaces the existing task (replace). Returns the uuid the task has now.
 */
export async function restoreTask(
  store: ContextStore,
  row: TaskRow,
  fill: (dir: string) => Promise<void>,
  options: { onConflict: UuidConflict },
): Promise<string> {
  const staging = path.join(store.root, '.staging', `${process.pid}-${randomHex(6)}`);
  fs.mkdirSync(staging, { recursive: true });
  try {
    await fill(staging);
    return store.repo.write(() => {
      const existing = store.repo.get(row.uuid);
      let uuid = row.uuid;
      if (existing && options.onConflict === 'replace') {
        if (existing.status === 'running') {
          throw new CwbError(
            'conflict',
            `task ${row.uuid} is running here; stop it before replacing it`,
          );
        }
        fs.rmSync(store.taskPath(existing), { recursive: true, force: true });
        store.repo.delete(row.uuid);
      } else if (existing) {
        uuid = crypto.randomUUID();
      }
      const status = row.status === 'running' ? 'failed' : row.status;
      store.repo.insertRow({
        ...row,
        uuid,
        status,
        error_message:
          row.status === 'running' ? 'imported while it was running' : row.error_message,
        process_id: null,
        hostname: row.hostname,
      });
      fs.renameSync(staging, taskDir(store.root, statusFolder(status), uuid));
      return uuid;
    });
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}
