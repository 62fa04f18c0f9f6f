import type { ContextStore } from '../store/context-store';
import { keepSearchIndexCurrent } from './session-search';

/** How often a host indexes what its tasks, imports and syncs wrote, and for how long at most. */
const UPKEEP_EVERY_MS = 2000;
const UPKEEP_BUDGET_MS = 200;

/**
 * A host (`cwb serve`, the app) keeps the search index current in the background: every
 * couple of seconds it indexes what was written since (a running task's steps, a sync), in
 * slices short enough not to hold up its requests, and so finishes a backfill over time.
 * Returns the stop function. On a fleet's PostgreSQL, each
 * host indexes the tasks of its own contexts folders.
 */
export function startSearchUpkeep(store: ContextStore): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    try {
      keepSearchIndexCurrent(store, UPKEEP_BUDGET_MS);
    } catch {
      // A busy or closing database: the next tick tries again; searches report errors.
    } finally {
      busy = false;
    }
  }, UPKEEP_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
