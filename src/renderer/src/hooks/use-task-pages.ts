import { useCallback, useEffect, useRef, useState } from 'react';
import type { WorkbenchEvent } from '../../../shared/api/events';
import type { TaskFacets, TaskListRow } from '../../../shared/api/tasks-api';
import type { WorkbenchApi } from '../../../shared/api/workbench-api';
import { useApi } from '../api/api-context';
import { refreshThrottle } from './refresh-throttle';

/** What the table asks the store for: everything but the paging. */
export type TaskQuery = Omit<
  Parameters<WorkbenchApi['queryTasks']>[0],
  'limit' | 'offset' | 'facets'
>;

export const TASK_PAGE_SIZE = 200;

/** The input of the call for one page of the table (also started early: first-view-calls.ts). */
export function taskPageInput(
  query: TaskQuery,
  page: number,
): Parameters<WorkbenchApi['queryTasks']>[0] {
  return { ...query, limit: TASK_PAGE_SIZE, offset: page * TASK_PAGE_SIZE };
}

export type TaskPagesState =
  /** `facets`: the last query's, so the filters keep their lists (marked busy) meanwhile. */
  | { kind: 'loading'; facets: TaskFacets | null }
  | { kind: 'error'; message: string }
  | {
      kind: 'ready';
      total: number;
      facets: TaskFacets | null;
      /** False while the facets shown are an earlier query's (this one's are on their way). */
      facetsCurrent: boolean;
    };

/** Events after which the loaded pages are read again (throttled: a running task sends many). */
const REFRESHING: ReadonlySet<WorkbenchEvent['type']> = new Set([
  'status',
  'stats',
  'task-exit',
  'tasks-changed',
  'compaction-finished',
]);
const REFRESH_DELAY_MS = 300;

export interface TaskPages {
  state: TaskPagesState;
  /** The row at an index, or undefined while its page is on the way. */
  rowAt(index: number): TaskListRow | undefined;
  /** Asks for the pages covering [first, last] (already loaded or in flight: nothing happens). */
  ensureRange(first: number, last: number): void;
  reload(): void;
}

/**
 * The task table's data, page by page: only what the user scrolls to is fetched, so
 * 100,000 tasks cost what a screenful costs. A new query starts over; live events re-read
 * the pages already loaded, keeping the old rows on screen until the new ones arrive.
 */
export function useTaskPages(query: TaskQuery): TaskPages {
  const api = useApi();
  const [state, setState] = useState<TaskPagesState>({ kind: 'loading', facets: null });
  const [, setVersion] = useState(0);
  const pages = useRef(new Map<number, TaskListRow[]>());
  const inFlight = useRef(new Set<number>());
  const generation = useRef(0);
  const lastFacets = useRef<TaskFacets | null>(null);
  /** The query generation the facets in lastFacets answer. */
  const facetsGen = useRef(-1);
  const queryKey = JSON.stringify(query);
  const queryRef = useRef(query);
  queryRef.current = query;

  // The facets (status counts, value lists) cost more than a page: asked for right after the
  // first page, so the rows never wait for the filters' counts.
  const fetchFacets = useCallback(
    (gen: number): void => {
      api.queryTasks({ ...queryRef.current, limit: 0, offset: 0, facets: true }).then(
        (result) => {
          if (gen !== generation.current || !result.facets) return;
          const facets = result.facets;
          lastFacets.current = facets;
          facetsGen.current = gen;
          setState((prev) =>
            prev.kind === 'ready' ? { ...prev, facets, facetsCurrent: true } : prev,
          );
        },
        () => undefined, // the filters keep the counts they had; the next refresh retries
      );
    },
    [api],
  );

  const fetchPage = useCallback(
    (page: number, gen: number): void => {
      if (inFlight.current.has(page)) return;
      inFlight.current.add(page);
      api.queryTasks(taskPageInput(queryRef.current, page)).then(
        (result) => {
          if (gen !== generation.current) return;
          inFlight.current.delete(page);
          pages.current.set(page, result.rows);
          setState({
            kind: 'ready',
            total: result.total,
            // Until this query's facets come, the last ones (the value lists cover every
            // task anyway) rather than none.
            facets: lastFacets.current,
            // A refresh of the same query keeps its counts current until the new ones come.
            facetsCurrent: facetsGen.current === gen,
          });
          setVersion((v) => v + 1);
          if (page === 0) fetchFacets(gen);
        },
        (err: unknown) => {
          if (gen !== generation.current) return;
          inFlight.current.delete(page);
          setState({ kind: 'error', message: err instanceof Error ? err.message : String(err) });
        },
      );
    },
    [api, fetchFacets],
  );

  const restart = useCallback(
    (keepRows: boolean) => {
      const gen = ++generation.current;
      const loaded = [...pages.current.keys()];
      inFlight.current.clear();
      if (!keepRows) {
        pages.current.clear();
        setState({ kind: 'loading', facets: lastFacets.current });
      }
      // Page 0 carries the total (and brings the facets); the others only if they were on screen.
      for (const page of new Set([0, ...loaded])) fetchPage(page, gen);
    },
    [fetchPage],
  );

  useEffect(() => {
    restart(false);
  }, [queryKey, restart]);

  useEffect(() => {
    const refresh = refreshThrottle(() => restart(true), REFRESH_DELAY_MS);
    const unsubscribe = api.onEvent((event) => {
      if (REFRESHING.has(event.type)) refresh.notify();
    });
    return () => {
      refresh.cancel();
      unsubscribe();
    };
  }, [api, restart]);

  const rowAt = useCallback(
    (index: number) =>
      pages.current.get(Math.floor(index / TASK_PAGE_SIZE))?.[index % TASK_PAGE_SIZE],
    [],
  );
  const ensureRange = useCallback(
    (first: number, last: number) => {
      for (
        let p = Math.floor(first / TASK_PAGE_SIZE);
        p <= Math.floor(last / TASK_PAGE_SIZE);
        p++
      ) {
        if (!pages.current.has(p)) fetchPage(p, generation.current);
      }
    },
    [fetchPage],
  );
  const reload = useCallback(() => restart(false), [restart]);
  return { state, rowAt, ensureRange, reload };
}
