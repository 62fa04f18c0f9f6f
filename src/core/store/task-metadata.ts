import fs from 'node:fs';
import path from 'node:path';
import type { TaskKey } from '../../shared/task-types';
import { TASK_FILES } from './contexts-layout';
import { writeFileAtomic } from '../jsonl/atomic-write';
import { writeAllSync } from '../jsonl/write-all';

/** metadata.json: written once when a task is created; the fields of seed 000 §3.1 and seed 001 §11.6. */
export interface TaskMetadata {
  uuid: string;
  task_key: Omit<TaskKey, 'user'>;
  created_at: string;
  process_id: number | null;
  hostname: string | null;
  config: {
    llm_provider: string | null;
    model: string | null;
    context_length: number | null;
    compression_threshold: number | null;
  };
  user: string | null;
  // seed 001 spellings
  task_type: string;
  task_identifier: string;
  repository: string;
  // ours
  title: string | null;
  prompt: string | null;
  workdir: string | null;
  parent_uuid: string | null;
  source?: Record<string, unknown>;
}

export function buildMetadata(input: {
  uuid: string;
  key: TaskKey;
  created_at: string;
  process_id: number | null;
  hostname: string | null;
  llm_provider?: string | null;
  model?: string | null;
  context_length?: number | null;
  compression_threshold?: number | null;
  title?: string | null;
  prompt?: string | null;
  workdir?: string | null;
  parent_uuid?: string | null;
  source?: Record<string, unknown>;
}): TaskMetadata {
  const { user, ...taskKey } = input.key;
  return {
    uuid: input.uuid,
    task_key: taskKey,
    created_at: input.created_at,
    process_id: input.process_id,
    hostname: input.hostname,
    config: {
      llm_provider: input.llm_provider ?? null,
      model: input.model ?? null,
      context_length: input.context_length ?? null,
      compression_threshold: input.compression_threshold ?? null,
    },
    user: user || null,
    task_type: taskKey.task_type,
    task_identifier: taskKey.task_id,
    repository: taskKey.owner ? `${taskKey.owner}/${taskKey.repo}` : taskKey.repo,
    title: input.title ?? null,
    prompt: input.prompt ?? null,
    workdir: input.workdir ?? null,
    parent_uuid: input.parent_uuid ?? null,
    ...(input.source && { source: input.source }),
  };
}

export function writeMetadata(taskDir: string, metadata: TaskMetadata): void {
  writeFileAtomic(path.join(taskDir, TASK_FILES.metadata), metadataText(metadata));
}

/**
 * metadata.json of a folder just made, inside the transaction that inserts its row (no
 * reader finds the folder before the row, and recovery waits for the write lock), left to
 * the system's write-back: one write of a new file, which a killed process leaves whole or
 * absent as a rename would, without the temp file, rename and two fsyncs of writeMetadata.
 */
export function writeNewMetadata(taskDir: string, metadata: TaskMetadata): void {
  const fd = fs.openSync(path.join(taskDir, TASK_FILES.metadata), 'wx');
  try {
    writeAllSync(fd, Buffer.from(metadataText(metadata), 'utf8'));
  } finally {
    fs.closeSync(fd);
  }
}

function metadataText(metadata: TaskMetadata): string {
  return `${JSON.stringify(metadata, null, 2)}\n`;
}

/** metadata.json is small and written by us; still, cap what we read. */
export function readMetadata(taskDir: string): Partial<TaskMetadata> | undefined {
  const file = path.join(taskDir, TASK_FILES.metadata);
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(Math.min(fs.fstatSync(fd).size, 4 << 20));
    fs.readSync(fd, buf, 0, buf.length, 0);
    const parsed: unknown = JSON.parse(buf.toString('utf8'));
    return parsed && typeof parsed === 'object' ? (parsed as Partial<TaskMetadata>) : undefined;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}
