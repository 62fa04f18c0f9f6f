import { z } from 'zod';
import { TASK_STATUSES } from '../../shared/task-types';
import { isTaskUuid } from '../../shared/uuid';
import { JSONL_FILES, TASK_FILES } from '../store/contexts-layout';

/**
 * The portable task archive (`cwb export --format archive`): a zip holding, per task, a
 * folder named by its uuid with the task's files, and at the root `manifest.json`:
 *
 *   { format: "cwb-task-archive", version: 1, created_at,
 *     tasks: [{ uuid, row: <the tasks.db row>, files: [{ path, bytes, sha256 }] }] }
 *
 * Only the files a task folder is made of travel, and an import accepts nothing else:
 * the store's TASK_FILES, the `.corrupt` companions of its JSONL files (torn lines set
 * aside by recovery), and `tool_outputs/<ref>.txt`. Temporary files (`.x.tmp-*`,
 * request.json) are left out.
 */
export const ARCHIVE_FORMAT = 'cwb-task-archive';
export const ARCHIVE_VERSION = 1;
export const MANIFEST_NAME = 'manifest.json';

// Derived from the store's own list, so a file the store adds later travels too.
const PLAIN_FILES: readonly string[] = [
  ...Object.values(TASK_FILES).filter((name) => name !== TASK_FILES.toolOutputs),
  ...JSONL_FILES.map((f) => `${f}.corrupt`),
];

const TOOL_OUTPUT = new RegExp(`^${TASK_FILES.toolOutputs}/[A-Za-z0-9_-]{1,64}\\.txt$`);

/** True for a path (relative to the task folder, `/`-separated) an archive may carry. */
export function isTaskFilePath(relative: string): boolean {
  return PLAIN_FILES.includes(relative) || TOOL_OUTPUT.test(relative);
}

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex sha256');

export const ManifestFileSchema = z.object({
  path: z.string().refine(isTaskFilePath, 'not a task file name'),
  bytes: z.number().int().nonnegative(),
  sha256: Sha256,
});

const nullableString = z.string().nullable();
const timestamp = z.string().max(64);
const uuid = z.string().refine(isTaskUuid, 'not a task uuid (UUID v4)');
const count = z.number().int().nonnegative();

/** The tasks.db row as exported; extra columns (generated ones such as task_identifier) are allowed and ignored. */
export const ManifestRowSchema = z.looseObject({
  uuid,
  status: z.enum(TASK_STATUSES),
  title: nullableString,
  prompt: nullableString,
  workdir: nullableString,
  // Other code may look a parent up by id, so it must be a uuid like any task id.
  parent_uuid: uuid.nullable(),
  task_source: z.string(),
  owner: z.string(),
  repo: z.string(),
  repository: z.string(),
  task_type: z.string(),
  task_id: z.string(),
  user: nullableString,
  created_at: timestamp,
  started_at: timestamp.nullable(),
  updated_at: timestamp,
  completed_at: timestamp.nullable(),
  process_id: z.number().int().nullable(),
  hostname: nullableString,
  llm_provider: nullableString,
  model: nullableString,
  context_length: z.number().int().nullable(),
  llm_call_count: count,
  tool_call_count: count,
  input_tokens: count,
  output_tokens: count,
  cache_creation_tokens: count,
  cache_read_tokens: count,
  total_tokens: count,
  compression_count: count,
  total_messages: count,
  total_summaries: count,
  total_tool_calls: count,
  final_token_count: count.nullable(),
  final_message_count: count.nullable(),
  error_message: nullableString,
  metadata: nullableString,
});

export const ManifestTaskSchema = z.object({
  uuid,
  row: ManifestRowSchema,
  files: z.array(ManifestFileSchema),
});

export const ManifestSchema = z.object({
  format: z.literal(ARCHIVE_FORMAT),
  version: z.literal(ARCHIVE_VERSION),
  created_at: z.string(),
  tasks: z.array(ManifestTaskSchema),
});

export type Manifest = z.infer<typeof ManifestSchema>;
export type ManifestTask = z.infer<typeof ManifestTaskSchema>;
export type ManifestFile = z.infer<typeof ManifestFileSchema>;
