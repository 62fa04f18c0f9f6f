import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import type { WorkbenchHandlers } from '../../shared/api/workbench-api';
import type { TaskStatus } from '../../shared/task-types';
import { taskSpecSchema } from '../../shared/worker-protocol';
import { prepareRun } from '../agent/prepare-run';
import { loadConfig } from '../config/load-config';
import { CwbError, badInput } from '../errors';
import type { ServiceContext } from './service-context';

/** How long "start" waits for the new task to be readable before answering anyway. */
const START_ANSWER_WAIT_MS = 10_000;

export function controlHandlers(
  ctx: ServiceContext,
): Pick<WorkbenchHandlers, 'startTask' | 'pauseTask' | 'resumeTask' | 'stopTask'> {
  const requireStatus = (uuid: string, allowed: readonly TaskStatus[], action: string): void => {
    const { status } = ctx.store.requireTask(uuid);
    if (!allowed.includes(status)) {
      throw new CwbError('conflict', `cannot ${action} task ${uuid}: it is ${status}`);
    }
  };
  const statusOf = (uuid: string): TaskStatus => ctx.store.requireTask(uuid).status;

  return {
    startTask: async (input) => {
      if (!fs.statSync(input.workdir, { throwIfNoEntry: false })?.isDirectory()) {
        throw badInput(`working directory ${input.workdir} does not exist`);
      }
      const spec = taskSpecSchema.parse({
        uuid: crypto.randomUUID(),
        contextsRoot: ctx.store.root,
        configFile: ctx.configFile,
        mode: 'new',
        prompt: input.prompt,
        title: input.title ?? null,
        workdir: input.workdir,
        key: { user: username(), ...input.key },
        ...(input.provider && { provider: input.provider }),
        ...(input.model && { model: input.model }),
        ...(input.baseUrl && { baseUrl: input.baseUrl }),
        ...(input.maxTurns && { maxTurns: input.maxTurns }),
        ...(input.compaction && { compaction: input.compaction }),
      });
      // Config, model and limits are checked here, so a mistake is an answer, not a failed task.
      prepareRun(spec, ctx.env, loadConfig({ file: spec.configFile, env: ctx.env }).config);
      const { contextsRoot: _root, configFile: _file, mode: _mode, ...start } = spec;
      const uuid = ctx.supervisor.start(start);
      await ctx.supervisor.whenReadable(uuid, START_ANSWER_WAIT_MS);
      ctx.events.publish({ type: 'tasks-changed', reason: 'start', uuids: [uuid] });
      return { uuid };
    },

    pauseTask: async ({ uuid }) => {
      requireStatus(uuid, ['running'], 'pause');
      ctx.supervisor.pause(uuid);
      return { uuid, requested: 'pause', status: statusOf(uuid) };
    },

    stopTask: async ({ uuid }) => {
      requireStatus(uuid, ['running'], 'stop');
      ctx.supervisor.stop(uuid);
      return { uuid, requested: 'stop', status: statusOf(uuid) };
    },

    resumeTask: async ({ uuid }) => {
      requireStatus(uuid, ['paused', 'failed'], 'resume');
      // A compaction or undo in progress here would race the new process for the same files.
      ctx.locks.assertFree(uuid);
      ctx.supervisor.resume(uuid);
      ctx.events.publish({ type: 'tasks-changed', reason: 'control', uuids: [uuid] });
      return { uuid, requested: 'resume', status: statusOf(uuid) };
    },
  };
}

function username(): string {
  try {
    return os.userInfo().username;
  } catch {
    return '';
  }
}
