import type { TaskSortColumn } from '../../../../shared/api/tasks-api';
import { dayEndIso, dayStartIso } from '../../format/dates';
import type { TaskQuery } from '../../hooks/use-task-pages';
import type { FilterValues } from './filter-values';

/** The agent filter's value for tasks this app ran (agent ''), which a select cannot carry. */
export const OWN_AGENT = '(workbench)';

/** What the table asks the store for, from the filters and sort on screen. */
export function toQuery(f: FilterValues, sort: TaskSortColumn, order: 'asc' | 'desc'): TaskQuery {
  const search = f.search.trim();
  const from = dayStartIso(f.from);
  const to = dayEndIso(f.to);
  return {
    sort,
    order,
    ...(search && { search }),
    ...(f.status.length > 0 && { status: f.status }),
    ...(f.repo && { repo: f.repo }),
    ...(f.user && { user: f.user }),
    ...(f.model && { model: f.model }),
    ...(f.agent && { agent: f.agent === OWN_AGENT ? '' : f.agent }),
    ...(f.host && { host: f.host }),
    // The days are local calendar days; the store compares UTC instants.
    ...(from && { createdFrom: from }),
    ...(to && { createdTo: to }),
  };
}
