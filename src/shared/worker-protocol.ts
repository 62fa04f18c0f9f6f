import { z } from 'zod';
import { STRATEGY_NAMES } from './strategy-names';

/**
 * The typed messages between a host (`cwb run`, `cwb serve`, Electron main) and a task
 * process (src/worker). Both sides validate what they receive with these schemas: a task
 * process is a separate program and a message is input like any other.
 */

export const taskKeySchema = z.object({
  task_source: z.string().default(''),
  owner: z.string().default(''),
  repo: z.string().default(''),
  task_type: z.string().default(''),
  task_id: z.string().default(''),
  user: z.string().default(''),
});

/** What a host asks a task process to run. No secret here: they travel in `start`'s configEnv. */
export const taskSpecSchema = z.object({
  uuid: z.string(),
  contextsRoot: z.string(),
  configFile: z.string().nullable().default(null),
  /** new: create the task; resume: continue a paused or interrupted one from its files. */
  mode: z.enum(['new', 'resume']),
  prompt: z.string().default(''),
  title: z.string().nullable().default(null),
  workdir: z.string().nullable().default(null),
  key: taskKeySchema.default({
    task_source: '',
    owner: '',
    repo: '',
    task_type: '',
    task_id: '',
    user: '',
  }),
  provider: z.enum(['openai', 'ollama', 'lmstudio']).optional(),
  model: z.string().optional(),
  baseUrl: z.string().optional(),
  /**
   * Model calls allowed over the task's whole life. new: default 50; resume: default what the
   * task was started with (kept in its row), and a value given here replaces that.
   */
  maxTurns: z.number().int().positive().optional(),
  /** This task's own compaction pipeline (default: config.yaml's compaction.pipeline). */
  compaction: z.array(z.enum(STRATEGY_NAMES)).min(1).optional(),
  systemPrompt: z.string().optional(),
});
export type TaskSpec = z.infer<typeof taskSpecSchema>;
export type TaskSpecInput = z.input<typeof taskSpecSchema>;

export const hostMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('start'),
    spec: taskSpecSchema,
    /**
     * The host's environment variables the task's config loading reads (`${VAR}`s of
     * config.yaml, provider keys, cwb's own): secrets among them. The task process keeps
     * them in memory only; its environment is allow-listed (src/core/supervisor/config-env.ts).
     */
    configEnv: z.record(z.string(), z.string()).default({}),
    /**
     * The task's config as the host loaded it (src/core/supervisor/config-env.ts), so the
     * task process need not parse config.yaml; absent = the task process loads it. Checked
     * here as an object only: the host built it through the config's full schema, and
     * building that schema again in every task process is what handing it over saves.
     */
    config: z.record(z.string(), z.unknown()).optional(),
    /**
     * The file descriptor of the pipe over which the host keeps the task's index for it
     * (src/core/supervisor/task-index-server.ts); absent = the task process opens tasks.db.
     */
    indexFd: z.number().int().min(3).optional(),
  }),
  /** Finish the current step, then move the task to paused/ and exit. */
  z.object({ type: z.literal('pause') }),
  /** Cancel what is in flight and end the task as failed ("stopped"). */
  z.object({ type: z.literal('stop') }),
  /** Run a compaction pass before the next LLM call. */
  z.object({ type: z.literal('compact-now') }),
]);
export type HostMessage = z.infer<typeof hostMessageSchema>;

export interface TaskProgress {
  turns: number;
  maxTurns: number;
  llmCalls: number;
  toolCalls: number;
  totalTokens: number;
  contextTokens: number;
  contextWindow: number;
}

export type WorkerEvent =
  | {
      type: 'status';
      uuid: string;
      status: 'running' | 'paused' | 'completed' | 'failed';
      error?: string;
    }
  | { type: 'message-appended'; uuid: string; seq: number; role: string; tokens: number }
  | { type: 'stats'; uuid: string; progress: TaskProgress }
  | { type: 'compaction-started'; uuid: string; reason: string }
  | { type: 'compaction-finished'; uuid: string; tokensBefore: number; tokensAfter: number }
  | { type: 'notice'; uuid: string; text: string }
  | { type: 'error'; uuid: string; message: string };

export const workerEventSchema: z.ZodType<WorkerEvent> = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('status'),
    uuid: z.string(),
    status: z.enum(['running', 'paused', 'completed', 'failed']),
    error: z.string().optional(),
  }),
  z.object({
    type: z.literal('message-appended'),
    uuid: z.string(),
    seq: z.number(),
    role: z.string(),
    tokens: z.number(),
  }),
  z.object({
    type: z.literal('stats'),
    uuid: z.string(),
    progress: z.object({
      turns: z.number(),
      maxTurns: z.number(),
      llmCalls: z.number(),
      toolCalls: z.number(),
      totalTokens: z.number(),
      contextTokens: z.number(),
      contextWindow: z.number(),
    }),
  }),
  z.object({ type: z.literal('compaction-started'), uuid: z.string(), reason: z.string() }),
  z.object({
    type: z.literal('compaction-finished'),
    uuid: z.string(),
    tokensBefore: z.number(),
    tokensAfter: z.number(),
  }),
  z.object({ type: z.literal('notice'), uuid: z.string(), text: z.string() }),
  z.object({ type: z.literal('error'), uuid: z.string(), message: z.string() }),
]);
