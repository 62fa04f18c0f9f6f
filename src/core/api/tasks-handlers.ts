import type { TaskListRow } from '../../shared/api/tasks-api';
import type { WorkbenchHandlers } from '../../shared/api/workbench-api';
import type { TaskRow } from '../../shared/task-types';
import { allRecords } from '../compaction/compaction-record';
import { taskFacets } from '../db/task-facets';
import type { ServiceContext } from './service-context';

const PROMPT_PREVIEW_CHARS = 200;

export function tasksHandlers(
  ctx: ServiceContext,
): Pick<WorkbenchHandlers, 'queryTasks' | 'getTask'> {
  return {
    queryTasks: async (q) => {
      const { facets, ...query } = q;
      const { rows, total } = ctx.store.listTasks(query);
      return {
        rows: rows.map(toListRow),
        total,
        offset: q.offset,
        limit: q.limit,
        ...(facets && { facets: taskFacets(ctx.store.db, query) }),
      };
    },

    getTask: async ({ uuid }) => {
      const reader = ctx.store.readTask(uuid);
      const records = allRecords(reader.dir);
      const metadata = reader.metadata();
      return {
        task: reader.row,
        metadata: metadata ? (metadata as Record<string, unknown>) : null,
        finalSummary: reader.finalSummary() ?? null,
        currentMessages: reader.current(1, 0).total,
        compactions: { total: records.length, active: records.filter((r) => !r.undone).length },
        supervised: ctx.supervisor.isRunning(uuid),
      };
    },
  };
}

/** The table does not need the whole prompt or the metadata JSON of every row. */
export function toListRow(row: TaskRow): TaskListRow {
  const { prompt, metadata: _metadata, ...rest } = row;
  return {
    ...rest,
    prompt_preview: prompt === null ? null : prompt.slice(0, PROMPT_PREVIEW_CHARS),
  };
}
