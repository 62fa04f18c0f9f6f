import { PgTaskRepository } from '../db/pg-task-repository';
import {
  statIncrements,
  type FigureColumn,
  type FinalStats,
  type StatIncrements,
} from '../db/task-index';
import type { ContextStore } from '../store/context-store';

/** A source task's row counters as its syncs have counted them (saved with the offset). */
export type RowTotals = Record<string, number>;

/**
 * Writes what one sync adds to a source task's row counters (LLM calls, usage).
 *
 * On tasks.db they are added in the transaction that also commits the file's offset, so
 * a sync counts exactly once. On a fleet index the offset is committed in this folder's
 * sources.db and the row lives in PostgreSQL: no transaction spans both, so a sync killed
 * between the two is replayed. There the row's counters are set to the totals the syncs
 * have counted so far (kept in the file's state, committed with the offset), never added
 * to: a replayed sync sets the same values again. Returns the totals to save (undefined on
 * tasks.db).
 */
export function writeRowStats(
  store: ContextStore,
  uuid: string,
  before: RowTotals | undefined,
  inc: StatIncrements,
): RowTotals | undefined {
  const increments = statIncrements(inc);
  if (!(store.repo instanceof PgTaskRepository)) {
    if (increments.length > 0) store.repo.addStats(uuid, inc);
    return undefined;
  }
  const totals: RowTotals = { ...before };
  for (const { value, columns } of increments)
    for (const column of columns) totals[column] = (totals[column] ?? 0) + value;
  // compression_count is set from the task's summaries by setFinalStats, as on tasks.db.
  delete totals.compression_count;
  if (increments.length > 0 || before === undefined) store.repo.setCounters(uuid, totals);
  return totals;
}

/**
 * A new row's figures as writeRowStats' increments and then setFinalStats would leave them
 * (its tool and compaction counts are the files' counts, as setFinalStats sets them).
 */
export function figuresOf(
  inc: StatIncrements,
  final: FinalStats,
): Partial<Record<FigureColumn, number>> {
  const figures: Partial<Record<FigureColumn, number>> = {};
  for (const { value, columns } of statIncrements(inc))
    for (const column of columns as readonly FigureColumn[])
      figures[column] = (figures[column] ?? 0) + value;
  return {
    ...figures,
    total_messages: final.total_messages,
    total_summaries: final.total_summaries,
    total_tool_calls: final.total_tool_calls,
    tool_call_count: final.total_tool_calls,
    compression_count: final.total_summaries,
    final_token_count: final.final_token_count,
    final_message_count: final.final_message_count,
  };
}
