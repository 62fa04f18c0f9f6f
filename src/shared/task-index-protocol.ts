import { z } from 'zod';
import { taskKeySchema } from './worker-protocol';

/**
 * What a task process asks of its host's task index (src/core/db/host-task-index.ts asks,
 * src/core/supervisor/task-index-server.ts answers): one JSON line each way over a pipe of
 * its own, the task process waiting for each answer. Only what a task process does to its
 * own task, plus the reads it needs (its row, the previous task of its key). The host
 * checks every request against these schemas: a task process is a program of its own.
 */

const uuid = z.string();
const count = z.number().int().nonnegative();

const statIncrements = z
  .object({
    llm_calls: count,
    tool_calls: count,
    compressions: count,
    messages: count,
    summaries: count,
    usage: z
      .object({
        input_tokens: count,
        output_tokens: count,
        cache_creation_tokens: count,
        cache_read_tokens: count,
        total_tokens: count,
      })
      .partial(),
  })
  .partial()
  .strict();

const finalStats = z
  .object({
    total_messages: count,
    total_summaries: count,
    total_tool_calls: count,
    final_token_count: count,
    final_message_count: count,
  })
  .strict();

const nullableText = z.string().nullable().optional();

const newTask = z
  .object({
    uuid,
    key: taskKeySchema.partial().optional(),
    title: nullableText,
    prompt: nullableText,
    workdir: nullableText,
    parent_uuid: nullableText,
    llm_provider: nullableText,
    model: nullableText,
    context_length: z.number().int().positive().nullable().optional(),
    compression_threshold: z.number().nullable().optional(),
    metadata: z.unknown().optional(),
    source: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const taskIndexRequestSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('get'), uuid }),
  z.object({
    op: z.literal('findPreviousByKey'),
    key: taskKeySchema,
    since: z.string(),
    excludeUuid: uuid.optional(),
  }),
  z.object({ op: z.literal('addStats'), uuid, inc: statIncrements }),
  z.object({ op: z.literal('setMetadata'), uuid, metadata: z.unknown() }),
  z.object({ op: z.literal('takeControl'), uuid }),
  z.object({ op: z.literal('createTaskFolder'), input: newTask }),
  z.object({ op: z.literal('claimTaskFolder'), uuid }),
  z.object({
    op: z.literal('moveTaskFolder'),
    uuid,
    status: z.enum(['paused', 'completed', 'failed']),
    extra: z.object({ error_message: z.string().optional(), stats: finalStats.optional() }),
  }),
]);
export type TaskIndexRequest = z.infer<typeof taskIndexRequestSchema>;

/** The answer to one request: its value, or the error the host's index or store threw. */
export type TaskIndexReply =
  { ok: true; value?: unknown } | { ok: false; code: string; message: string };
