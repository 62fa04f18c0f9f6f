import { create } from 'zustand';
import type { SearchRole } from '../../../../shared/api/search-api';

export type SearchScope = 'tasks' | 'messages';

/** What the message search asks for, as the fields on screen hold it. */
export interface MessageSearchValues {
  query: string;
  exact: boolean;
  /** The agent select's value ('' any; OWN_AGENT for tasks this app ran). */
  agent: string;
  repo: string;
  role: SearchRole | '';
  tool: string;
  /** yyyy-mm-dd, '' when unset. */
  since: string;
}

export const NO_MESSAGE_SEARCH: MessageSearchValues = {
  query: '',
  exact: false,
  agent: '',
  repo: '',
  role: '',
  tool: '',
  since: '',
};

export const FIRST_LIMIT = 50;

interface SearchState {
  scope: SearchScope;
  values: MessageSearchValues;
  limit: number;
  /** The hit under the keyboard (uuid:seq), so that coming back from a task finds it again. */
  active: string | null;
  setScope(scope: SearchScope): void;
  setValues(values: MessageSearchValues): void;
  setLimit(limit: number): void;
  setActive(active: string | null): void;
}

/**
 * The task list's search scope and the message search outlive the page, as the browser's
 * filters do: Esc from the task a hit opened comes back to the same hits.
 */
export const useSearchStore = create<SearchState>((set) => ({
  scope: 'tasks',
  values: NO_MESSAGE_SEARCH,
  limit: FIRST_LIMIT,
  active: null,
  setScope: (scope) => set({ scope }),
  setValues: (values) => set({ values, limit: FIRST_LIMIT, active: null }),
  setLimit: (limit) => set({ limit }),
  setActive: (active) => set({ active }),
}));
