import type { WorkbenchHandlers } from '../../shared/api/workbench-api';
import { exactMessageTokens } from '../tokens/exact';
import { searchHistory } from './search-messages';
import type { ServiceContext } from './service-context';

export function messagesHandlers(
  ctx: ServiceContext,
): Pick<WorkbenchHandlers, 'readMessages' | 'searchMessages'> {
  return {
    readMessages: async ({ uuid, view, from, limit, exactTokens }) => {
      const reader = ctx.store.readTask(uuid);
      if (view === 'current') return { view, ...reader.current(from, limit) };
      const window = reader.messages(from, limit);
      if (exactTokens) {
        for (const message of window.messages) {
          message.tokens_o200k ??= await exactMessageTokens(message);
        }
      }
      return { view, ...window };
    },

    searchMessages: async ({ uuid, ...options }) =>
      searchHistory(ctx.store.readTask(uuid).dir, options),
  };
}
