import type { WorkbenchHandlers } from '../../shared/api/workbench-api';
import { priceBookOf } from '../cost';
import { searchAllSessions } from '../search/session-search';
import { usageOf } from '../usage/usage-of';
import type { ServiceContext } from './service-context';

export function searchUsageHandlers(
  ctx: ServiceContext,
): Pick<WorkbenchHandlers, 'searchSessions' | 'usageReport'> {
  return {
    searchSessions: async (input) => searchAllSessions(ctx.store, input),
    usageReport: async (input) =>
      usageOf(
        ctx.store,
        priceBookOf(() => ctx.loadConfig()),
        input,
      ),
  };
}
