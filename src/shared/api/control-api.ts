import { z } from 'zod';
import type { TaskStatus } from '../task-types';
import { STRATEGY_NAMES } from '../strategy-names';
import { hostPathSchema, taskRefInput } from './common-schemas';
import { operation } from './operation';

const keyPart = z.string().max(200);

export const startTaskInput = z.strictObject({
  prompt: z.string().min(1).max(1_000_000),
  title: z.string().max(500).optional(),
  /** The folder the agent works in (its tools are confined to it). */
  workdir: hostPathSchema,
  provider: z.enum(['openai', 'ollama', 'lmstudio']).optional(),
  model: z.string().min(1).max(200).optional(),
  baseUrl: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional(),
  maxTurns: z.number().int().min(1).max(10_000).optional(),
  /** This task's compaction pipeline (a preset); default: the configured pipeline. */
  compaction: z.array(z.enum(STRATEGY_NAMES)).min(1).max(STRATEGY_NAMES.length).optional(),
  /** The task key (seed 000): runs with the same key inherit from each other. */
  key: z
    .strictObject({
      task_source: keyPart.optional(),
      owner: keyPart.optional(),
      repo: keyPart.optional(),
      task_type: keyPart.optional(),
      task_id: keyPart.optional(),
      user: keyPart.optional(),
    })
    .optional(),
});

export interface StartedTask {
  uuid: string;
}

export interface ControlResult {
  uuid: string;
  requested: 'pause' | 'resume' | 'stop';
  /** The status right after the request (a pause or stop takes effect after the current step). */
  status: TaskStatus;
}

export const controlOperations = {
  startTask: operation(startTaskInput).returns<StartedTask>(),
  pauseTask: operation(taskRefInput).returns<ControlResult>(),
  resumeTask: operation(taskRefInput).returns<ControlResult>(),
  stopTask: operation(taskRefInput).returns<ControlResult>(),
};
