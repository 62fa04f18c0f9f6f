import type { SearchSessionsInput, SessionSearchResult } from '../../shared/api/search-api';
import { searchSessionsInput } from '../../shared/api/search-api';
import { pgMessageTarget } from '../db/pg-message-index';
import { searchSessionsPg } from '../db/pg-message-search';
import { PgTaskRepository } from '../db/pg-task-repository';
import type { ContextStore } from '../store/context-store';
import {
  indexPendingMessagesInto,
  sqliteTarget,
  type IndexProgress,
  type MessageIndexTarget,
} from './message-index';
import { searchSessions } from './search-sessions';

/**
 * How long one search may spend indexing messages not yet indexed before it answers: new
 * messages of running tasks are a few lines; a large backfill goes on in the background
 * (the hosts' upkeep) and in later calls, the answer saying how many tasks are pending.
 */
export const SEARCH_CATCH_UP_MS = 250;

/**
 * Search across every session of a contexts folder: the one entry the API, `cwb search`
 * and the MCP server use, on tasks.db or a fleet's PostgreSQL. The input is checked
 * against the contract's schema.
 */
export function searchAllSessions(
  store: ContextStore,
  input: SearchSessionsInput,
  options: { catchUpMs?: number } = {},
): SessionSearchResult {
  const parsed = searchSessionsInput.parse(input);
  keepSearchIndexCurrent(store, options.catchUpMs ?? SEARCH_CATCH_UP_MS);
  if (store.repo instanceof PgTaskRepository) return searchSessionsPg(store.repo, parsed);
  return searchSessions(store.db, (row) => store.taskPath(row), parsed);
}

/** Where this store's message index is: tasks.db, or the fleet's PostgreSQL. */
export function messageIndexOf(store: ContextStore): MessageIndexTarget {
  return store.repo instanceof PgTaskRepository
    ? pgMessageTarget(store.repo)
    : sqliteTarget(store.db);
}

/** Indexes what is pending (of this contexts folder's tasks) for at most `budgetMs`. */
export function keepSearchIndexCurrent(
  store: ContextStore,
  budgetMs: number,
  onProgress?: (p: IndexProgress) => void,
): IndexProgress {
  return indexPendingMessagesInto(messageIndexOf(store), (row) => store.taskPath(row), {
    budgetMs,
    ...(onProgress && { onProgress }),
  });
}
