import type { SearchSessionsInput, SessionSearchResult } from '../../shared/api/search-api';
import { searchSessionsInput } from '../../shared/api/search-api';
import type { ContextStore } from '../store/context-store';
import { indexPendingMessages, type IndexProgress } from './message-index';
import { searchSessions } from './search-sessions';

/**
 * How long one search may spend indexing messages not yet indexed before it answers: new
 * messages of running tasks are a few lines; a large backfill goes on in the background
 * (the hosts' upkeep) and in later calls, the answer saying how many tasks are pending.
 */
export const SEARCH_CATCH_UP_MS = 250;

/**
 * Search across every session of a contexts folder: the one entry the API, `cwb search`
 * and the MCP server use. The input is checked against the contract's schema.
 */
export function searchAllSessions(
  store: ContextStore,
  input: SearchSessionsInput,
  options: { catchUpMs?: number } = {},
): SessionSearchResult {
  const parsed = searchSessionsInput.parse(input);
  keepSearchIndexCurrent(store, options.catchUpMs ?? SEARCH_CATCH_UP_MS);
  return searchSessions(store.db, (row) => store.taskPath(row), parsed);
}

/** Indexes what is pending for at most `budgetMs` (store.db refuses a PostgreSQL index). */
export function keepSearchIndexCurrent(
  store: ContextStore,
  budgetMs: number,
  onProgress?: (p: IndexProgress) => void,
): IndexProgress {
  return indexPendingMessages(store.db, (row) => store.taskPath(row), {
    budgetMs,
    ...(onProgress && { onProgress }),
  });
}
