import { useEffect, useRef, useState } from 'react';
import type { ContextUsageSeries } from '../../../../shared/api/task-view-api';
import type { WorkbenchApi } from '../../../../shared/api/workbench-api';
import { useApi } from '../../api/api-context';
import { retryWhileNotFound } from './not-found-retry';

export type UsageState =
  | { kind: 'loading' }
  | { kind: 'ready'; series: ContextUsageSeries }
  | { kind: 'error'; message: string };

const MAX_POINTS = 1500;

/** The input of the usage call (also started early: first-view-calls.ts). */
export function usageInput(uuid: string): Parameters<WorkbenchApi['contextUsage']>[0] {
  return { uuid, maxPoints: MAX_POINTS };
}

/** The host's downsampled usage series; recomputed when `revision` moves (a live task). */
export function useContextUsage(uuid: string, revision: number): UsageState {
  const api = useApi();
  const [state, setState] = useState<UsageState>({ kind: 'loading' });
  const shown = useRef(false);
  useEffect(() => {
    shown.current = false;
  }, [uuid]);
  useEffect(() => {
    let live = true;
    retryWhileNotFound(() => api.contextUsage(usageInput(uuid)), {
      shownBefore: () => shown.current,
      cancelled: () => !live,
    }).then(
      (series) => {
        if (!live) return;
        shown.current = true;
        setState({ kind: 'ready', series });
      },
      (err: unknown) => {
        if (live)
          setState({ kind: 'error', message: err instanceof Error ? err.message : String(err) });
      },
    );
    return () => {
      live = false;
    };
  }, [api, uuid, revision]);
  return state;
}
