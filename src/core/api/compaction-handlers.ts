import type { CompactionStrategyName } from '../../shared/api/compaction-api';
import type { ApiParsedInput, WorkbenchHandlers } from '../../shared/api/workbench-api';
import { runCompaction } from '../compaction/compaction-engine';
import { activeRecords, allRecords } from '../compaction/compaction-record';
import { buildPipeline } from '../compaction/pipeline';
import { rewindTo, undoCompaction } from '../compaction/undo';
import { CwbError } from '../errors';
import type { TaskContextManager } from '../store/task-context-manager';
import { compactionRuntime } from './compaction-runtime';
import { toRecordInfo, toReport } from './compaction-report';
import type { ServiceContext } from './service-context';

type RunInput = ApiParsedInput<'runCompaction'>;

export function compactionHandlers(
  ctx: ServiceContext,
): Pick<
  WorkbenchHandlers,
  'listCompactions' | 'previewCompaction' | 'runCompaction' | 'undoCompaction' | 'rewindTask'
> {
  /** Opens an idle task for a change, one change per task at a time, and closes it after. */
  const maintain = <T>(
    uuid: string,
    what: string,
    fn: (task: TaskContextManager) => Promise<T>,
  ): Promise<T> =>
    ctx.locks.run(uuid, what, async () => {
      const task = ctx.store.openForMaintenance(uuid);
      try {
        return await fn(task);
      } finally {
        task.close();
      }
    });

  const compact = async (input: RunInput, dryRun: boolean) =>
    maintain(input.uuid, dryRun ? 'compaction preview' : 'compaction', async (task) => {
      const { config } = ctx.loadConfig();
      const runtime = compactionRuntime(config, task.row(), ctx.env, task.dir);
      const steps = buildPipeline(
        config,
        runtime.contextWindow,
        input.strategies ?? config.compaction.pipeline,
        (input.params ?? {}) as Partial<Record<CompactionStrategyName, Record<string, unknown>>>,
      );
      if (!dryRun)
        ctx.events.publish({ type: 'compaction-started', uuid: input.uuid, reason: 'manual' });
      const run = await runCompaction(task, {
        steps,
        reason: 'manual',
        dryRun,
        summarizer: runtime.summarizer,
        contextWindow: runtime.contextWindow,
        maxOutputTokens: runtime.maxOutputTokens,
      });
      if (!dryRun) {
        ctx.events.publish({
          type: 'compaction-finished',
          uuid: input.uuid,
          tokensBefore: run.tokensBefore,
          tokensAfter: run.tokensAfter,
        });
        ctx.events.publish({ type: 'tasks-changed', reason: 'compaction', uuids: [input.uuid] });
      }
      return toReport(run, runtime.summarizer.kind);
    });

  return {
    listCompactions: async ({ uuid }) => {
      const dir = ctx.store.readTask(uuid).dir;
      return { records: allRecords(dir).map(toRecordInfo), bad: activeRecords(dir).bad };
    },

    previewCompaction: async (input) => {
      refuseRunning(ctx, input.uuid, 'preview a compaction of');
      return compact(input, true);
    },

    runCompaction: async (input) => {
      const row = ctx.store.requireTask(input.uuid);
      if (row.status === 'running') {
        if (input.strategies || input.params) {
          throw new CwbError(
            'conflict',
            `task ${input.uuid} is running: its own process compacts it with the configured pipeline; pause it to choose strategies`,
          );
        }
        ctx.supervisor.compactNow(input.uuid);
        return { mode: 'requested', uuid: input.uuid };
      }
      return { mode: 'ran', report: await compact(input, false) };
    },

    undoCompaction: async ({ uuid, id }) => {
      refuseRunning(ctx, uuid, 'undo a compaction of');
      const result = await maintain(uuid, 'undo', (task) => undoCompaction(task, id));
      ctx.events.publish({ type: 'tasks-changed', reason: 'undo', uuids: [uuid] });
      return result;
    },

    rewindTask: async ({ uuid, seq }) => {
      refuseRunning(ctx, uuid, 'rewind');
      const result = await maintain(uuid, 'rewind', (task) => rewindTo(task, seq));
      ctx.events.publish({ type: 'tasks-changed', reason: 'rewind', uuids: [uuid] });
      return {
        recordId: result.recordId,
        undone: result.undone,
        hiddenCount: result.hiddenSeqs.length,
        tokensBefore: result.tokensBefore,
        tokensAfter: result.tokensAfter,
      };
    },
  };
}

/**
 * A running task's files belong to its process: opening them for maintenance would also
 * repair what looks like a torn last line while that process is still writing it.
 */
function refuseRunning(ctx: ServiceContext, uuid: string, what: string): void {
  const row = ctx.store.requireTask(uuid);
  if (row.status === 'running') {
    throw new CwbError('conflict', `cannot ${what} task ${uuid} while it runs; pause it first`);
  }
}
