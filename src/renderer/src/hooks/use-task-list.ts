import { useCallback, useEffect, useRef, useState } from 'react';
import type { TasksPage } from '../../../shared/api/tasks-api';
import type { WorkbenchEvent } from '../../../shared/api/events';
import { useApi } from '../api/api-context';

export type TaskListState =
  { kind: 'loading' } | { kind: 'ready'; page: TasksPage } | { kind: 'error'; message: string };

/** Events after which the list is read again (debounced: a running task sends many). */
const REFRESHING: ReadonlySet<WorkbenchEvent['type']> = new Set([
  'status',
  'task-exit',
  'tasks-changed',
  'compaction-finished',
]);
const REFRESH_DELAY_MS = 400;
const PAGE_SIZE = 200;

/** The newest tasks first, kept live by the host's events. */
export function useTaskList(): { state: TaskListState; reload: () => void } {
  const api = useApi();
  const [state, setState] = useState<TaskListState>({ kind: 'loading' });
  const request = useRef(0);

  const load = useCallback(() => {
    const id = ++request.current;
    api.queryTasks({ sort: 'updated_at', order: 'desc', limit: PAGE_SIZE, facets: true }).then(
      (page) => id === request.current && setState({ kind: 'ready', page }),
      (err: unknown) =>
        id === request.current &&
        setState({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
  }, [api]);

  useEffect(() => {
    load();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = api.onEvent((event) => {
      if (!REFRESHING.has(event.type)) return;
      clearTimeout(timer);
      timer = setTimeout(load, REFRESH_DELAY_MS);
    });
    return () => {
      clearTimeout(timer);
      unsubscribe();
    };
  }, [api, load]);

  const reload = useCallback(() => {
    setState({ kind: 'loading' });
    load();
  }, [load]);
  return { state, reload };
}
