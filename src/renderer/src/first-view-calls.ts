import type { EarlyCalls } from './api/early-calls';
import { useBrowserStore } from './features/browser/browser-store';
import { toQuery } from './features/browser/task-query';
import { usageInput } from './features/task/use-context-usage';
import { windowInput, windowOf } from './features/task/use-message-windows';
import { taskPageInput } from './hooks/use-task-pages';
import type { Route } from './router/route';

/**
 * The calls the view at `route` makes as it first renders, with the same inputs its hooks
 * build, started before React runs so the answers are on their way while the page sets up.
 */
export function startFirstViewCalls(start: EarlyCalls['start'], route: Route): void {
  // In the order they are needed: a server answers one call at a time, and the rows come
  // first; the usage chart (a scan of the task's history when not cached) comes last.
  if (route.page === 'tasks') {
    const { filters, sort } = useBrowserStore.getState();
    start('queryTasks', taskPageInput(toQuery(filters, sort.column, sort.order), 0));
  } else if (route.page === 'task') {
    const { uuid } = route;
    if (route.tab === 'timeline')
      start('readMessages', windowInput(uuid, route.view ?? 'history', windowOf(route.seq)));
    start('getTask', { uuid });
    start('listCompactions', { uuid });
    start('contextUsage', usageInput(uuid));
  }
  start('appInfo', undefined);
}
