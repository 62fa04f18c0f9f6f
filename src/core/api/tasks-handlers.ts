import type { TaskListRow, TasksCostTotal } from '../../shared/api/tasks-api';
import type { WorkbenchHandlers } from '../../shared/api/workbench-api';
import type { TaskRow } from '../../shared/task-types';
import { allRecords } from '../compaction/compaction-record';
import type { FacetValues } from '../db/task-facets';
import path from 'node:path';
import { TASK_FILES } from '../store/contexts-layout';
import { LineCountCache } from './line-count-cache';
import { costRates, priceBookOf, rowCost, taskCost, type PriceBook } from '../cost';
import type { ServiceContext } from './service-context';

const PROMPT_PREVIEW_CHARS = 200;

export function tasksHandlers(
  ctx: ServiceContext,
): Pick<WorkbenchHandlers, 'queryTasks' | 'getTask'> {
  // The value lists cover every task and cost a scan each (~0.2 s at 100,000 tasks), so
  // they are kept until the table changes; status counts follow the filters every time.
  let values: { stamp: string; lists: FacetValues } | undefined;
  const facetValues = (): FacetValues => {
    const stamp = ctx.store.repo.stamp();
    if (values?.stamp !== stamp) values = { stamp, lists: ctx.store.repo.facetValues() };
    return values.lists;
  };
  const currentLines = new LineCountCache();
  return {
    queryTasks: async (q) => {
      const { facets, ...query } = q;
      const book = priceBookOf(() => ctx.loadConfig());
      const rates = facets || query.sort === 'cost' ? costRates(ctx.store.repo, book) : undefined;
      const { rows, total } = ctx.store.listTasks({
        ...query,
        ...(query.sort === 'cost' && rates && { costRates: rates }),
      });
      let cost: TasksCostTotal | undefined;
      if (facets && rates) {
        const { facets: _f, sort: _s, order: _o, limit: _l, offset: _off, ...filter } = q;
        cost = ctx.store.repo.sumCost(filter, rates);
      }
      return {
        rows: rows.map((r) => toListRow(r, book)),
        total,
        offset: q.offset,
        limit: q.limit,
        ...(facets && {
          facets: {
            status: ctx.store.repo.statusCounts(query),
            ...facetValues(),
            ...(cost && { cost }),
          },
        }),
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
        // A line count, not a parse of every line: current.jsonl can hold 100 MiB.
        currentMessages: currentLines.count(path.join(reader.dir, TASK_FILES.current)),
        compactions: { total: records.length, active: records.filter((r) => !r.undone).length },
        supervised: ctx.supervisor.isRunning(uuid),
        cost: taskCost(
          reader.row,
          records,
          priceBookOf(() => ctx.loadConfig()),
        ),
      };
    },
  };
}

/** The table does not need the whole prompt or the metadata JSON of every row. */
export function toListRow(row: TaskRow, book: PriceBook): TaskListRow {
  const { prompt, metadata: _metadata, ...rest } = row;
  return {
    ...rest,
    prompt_preview: prompt === null ? null : prompt.slice(0, PROMPT_PREVIEW_CHARS),
    cost: rowCost(row, book),
  };
}
