import type { WorkbenchHandlers } from '../../shared/api/workbench-api';
import { searchHistory } from './search-messages';
import type { ServiceContext } from './service-context';

export function messagesHandlers(
  ctx: ServiceContext,
): Pick<WorkbenchHandlers, 'readMessages' | 'searchMessages'> {
  return {
    readMessages: async ({ uuid, view, from, limit }) => {
      const reader = ctx.store.readTask(uuid);
      if (view === 'current') return { view, ...reader.current(from, limit) };
      return { view, ...reader.messages(from, limit) };
    },

    searchMessages: async ({ uuid, ...options }) =>
      searchHistory(ctx.store.readTask(uuid).dir, options),
  };
}
