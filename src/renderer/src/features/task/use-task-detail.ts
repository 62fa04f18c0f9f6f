import { useCallback, useEffect, useRef, useState } from 'react';
import type { TaskDetail } from '../../../../shared/api/tasks-api';
import type { WorkbenchEvent } from '../../../../shared/api/events';
import { useApi } from '../../api/api-context';
import { retryWhileNotFound } from './not-found-retry';
import { refreshThrottle } from '../../hooks/refresh-throttle';
import { ApiError } from '../../../../shared/api/api-result';

export type DetailState =
  | { kind: 'loading' }
  | { kind: 'ready'; detail: TaskDetail }
  | { kind: 'error'; message: string }
  /** No such task (yet): shown at once; a task that appears a moment later still opens. */
  | { kind: 'not-found' };

const REFRESH_DELAY_MS = 300;

function concerns(event: WorkbenchEvent, uuid: string): boolean {
  if (event.type === 'tasks-changed')
    return event.uuids.includes(uuid) || event.reason === 'external';
  return event.uuid === uuid;
}

/**
 * The task's row and files summary, read again (debounced) after any event about it.
 * `revision` grows with each event so the timeline and chart can follow a running task.
 */
export function useTaskDetail(uuid: string): {
  state: DetailState;
  revision: number;
  reload: () => void;
} {
  const api = useApi();
  const [state, setState] = useState<DetailState>({ kind: 'loading' });
  const [revision, setRevision] = useState(0);
  const request = useRef(0);
  const shown = useRef(false);

  const load = useCallback(() => {
    const id = ++request.current;
    const stale = (): boolean => id !== request.current;
    retryWhileNotFound(() => api.getTask({ uuid }), {
      shownBefore: () => shown.current,
      cancelled: stale,
      onRetry: () => {
        if (!stale()) setState({ kind: 'not-found' });
      },
    }).then(
      (detail) => {
        if (stale()) return;
        shown.current = true;
        setState({ kind: 'ready', detail });
      },
      (err: unknown) => {
        if (stale()) return;
        if (err instanceof ApiError && err.code === 'not_found') setState({ kind: 'not-found' });
        else setState({ kind: 'error', message: err instanceof Error ? err.message : String(err) });
      },
    );
  }, [api, uuid]);

  useEffect(() => {
    shown.current = false;
    setState({ kind: 'loading' });
    load();
    const refresh = refreshThrottle(() => {
      load();
      setRevision((r) => r + 1);
    }, REFRESH_DELAY_MS);
    const unsubscribe = api.onEvent((event) => {
      if (concerns(event, uuid)) refresh.notify();
    });
    return () => {
      refresh.cancel();
      request.current++;
      unsubscribe();
    };
  }, [api, uuid, load]);

  return { state, revision, reload: load };
}
