import {
  COMPACTION_STRATEGIES,
  type CompactionStrategyName,
} from '../../shared/api/compaction-api';
import type { ApiParsedInput, WorkbenchHandlers } from '../../shared/api/workbench-api';
import { runCompaction } from '../compaction/compaction-engine';
import { activeRecords, allRecords } from '../compaction/compaction-record';
import { contextAroundRecord } from '../compaction/compaction-diff';
import { pointAt, type CompactionPoint } from '../compaction/compaction-points';
import { neededNextOfRecord, neededNextOfRun } from '../compaction/needed-next-info';
import { compactionQuality } from '../compaction/compaction-quality';
import { evaluateTask } from '../compaction/evaluate-compaction';
import { buildPipeline, defaultParams } from '../compaction/pipeline';
import { previewRewind } from '../compaction/rewind-preview';
import { rewindTo, undoCompaction } from '../compaction/undo';
import { CwbError } from '../errors';
import type { TaskContextManager } from '../store/task-context-manager';
import { compactionRuntime } from './compaction-runtime';
import { toDiffSide } from './compaction-diff-view';
import { toRecordInfo, toReport } from './compaction-report';
import type { ServiceContext } from './service-context';

type RunInput = ApiParsedInput<'runCompaction'> & { atSeq?: number };

export function compactionHandlers(
  ctx: ServiceContext,
): Pick<
  WorkbenchHandlers,
  | 'listCompactions'
  | 'previewCompaction'
  | 'runCompaction'
  | 'undoCompaction'
  | 'rewindTask'
  | 'compactionDiff'
  | 'compactionNeededNext'
  | 'compactionDefaults'
  | 'cancelCompaction'
  | 'previewRewind'
  | 'evaluateCompaction'
> {
  /** Compactions this host is running, by task, so the UI can cancel them. */
  const running = new Map<string, AbortController>();

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
      // A preview at a past point starts from the context as it was then.
      const point = input.atSeq === undefined ? undefined : pastPoint(task, input.atSeq);
      const abort = new AbortController();
      if (!dryRun) {
        running.set(input.uuid, abort);
        ctx.events.publish({ type: 'compaction-started', uuid: input.uuid, reason: 'manual' });
      }
      const run = await runCompaction(task, {
        steps,
        reason: 'manual',
        dryRun,
        // The UI shows what each step kept, for a run as for a preview.
        measureQuality: true,
        summarizer: runtime.summarizer,
        contextWindow: runtime.contextWindow,
        maxOutputTokens: runtime.maxOutputTokens,
        signal: abort.signal,
        ...(point && { initialView: point.prefix }),
        ...(!dryRun && {
          onStep: (step, index, total) =>
            ctx.events.publish({
              type: 'compaction-step',
              uuid: input.uuid,
              index,
              total,
              strategy: step.strategy,
              applied: step.applied,
              ...(step.reason !== undefined && { reason: step.reason }),
              tokensBefore: step.tokensBefore,
              tokensAfter: step.tokensAfter,
            }),
        }),
      }).finally(() => {
        if (running.get(input.uuid) === abort) running.delete(input.uuid);
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
      return {
        ...toReport(run, runtime.summarizer.kind),
        ...(abort.signal.aborted && { cancelled: true }),
        ...(point && {
          atSeq: point.endSeq,
          neededNext: neededNextOfRun(point, run, task.row()),
        }),
      };
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

    compactionNeededNext: async ({ uuid, id }) => {
      const { config } = ctx.loadConfig();
      const row = ctx.store.requireTask(uuid);
      const dir = ctx.store.readTask(uuid).dir;
      const around = contextAroundRecord(dir, id);
      // Dry runs only: safe beside a running task's process, which stays the only writer.
      return neededNextOfRecord(dir, row, config, around.record, around);
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

    compactionDiff: async ({ uuid, id, limit }) => {
      const dir = ctx.store.readTask(uuid).dir;
      const around = contextAroundRecord(dir, id);
      return {
        record: toRecordInfo(around.record),
        previousId: around.previousId,
        before: toDiffSide(around.before, limit),
        after: toDiffSide(around.after, limit),
        quality: compactionQuality(around.before, around.after),
      };
    },

    compactionDefaults: async ({ uuid }) => {
      const row = ctx.store.requireTask(uuid);
      const { config } = ctx.loadConfig();
      const runtime = compactionRuntime(config, row, ctx.env, ctx.store.readTask(uuid).dir);
      const params = Object.fromEntries(
        COMPACTION_STRATEGIES.map((name) => [
          name,
          defaultParams(name, config, runtime.contextWindow),
        ]),
      ) as Record<CompactionStrategyName, Record<string, unknown>>;
      // The same pipeline a run without strategies uses (buildPipeline drops a disabled cache).
      const pipeline = buildPipeline(config, runtime.contextWindow).map(
        (step) => step.strategy.name as CompactionStrategyName,
      );
      return {
        pipeline,
        params,
        contextWindow: runtime.contextWindow,
        summarizer: runtime.summarizer.kind,
        running: row.status === 'running',
      };
    },

    cancelCompaction: async ({ uuid }) => {
      const abort = running.get(uuid);
      abort?.abort();
      return { cancelled: abort !== undefined };
    },

    previewRewind: async ({ uuid, seq }) => previewRewind(ctx.store.readTask(uuid).dir, seq),

    evaluateCompaction: async ({ uuid, candidates, beforeRecord }) => {
      const { config } = ctx.loadConfig();
      // Dry runs only: safe beside a running task's process, which stays the only writer.
      const points = await evaluateTask(ctx.store, config, uuid, candidates, {
        ...(beforeRecord !== undefined && { beforeRecord }),
      });
      return { points };
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

/** The point of a preview at a past seq (`atSeq`): refused past the task's last message. */
function pastPoint(task: TaskContextManager, seq: number): CompactionPoint {
  const last = task.row().total_messages;
  if (seq > last)
    throw new CwbError('bad_input', `atSeq ${seq}: task ${task.row().uuid} has ${last} messages`);
  return pointAt(task.dir, seq);
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
