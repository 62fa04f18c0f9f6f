import { create } from 'zustand';
import type { TaskSortColumn } from '../../../../shared/api/tasks-api';
import { NO_FILTERS, type FilterValues } from './filter-values';

interface BrowserState {
  filters: FilterValues;
  sort: { column: TaskSortColumn; order: 'asc' | 'desc' };
  /** The row under the keyboard cursor. */
  active: number;
  setFilters(filters: FilterValues): void;
  setSort(sort: BrowserState['sort']): void;
  setActive(active: number): void;
}

/**
 * The task browser's filters, sort and cursor outlive the page: opening a task and coming
 * back finds the list as it was left (for this session; a reload starts afresh).
 */
export const useBrowserStore = create<BrowserState>((set) => ({
  filters: NO_FILTERS,
  sort: { column: 'created_at', order: 'desc' },
  active: 0,
  setFilters: (filters) => set({ filters, active: 0 }),
  setSort: (sort) => set({ sort, active: 0 }),
  setActive: (active) => set({ active }),
}));
