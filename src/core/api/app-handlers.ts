import type { WorkbenchHandlers } from '../../shared/api/workbench-api';
import type { ServiceContext } from './service-context';

export function appHandlers(ctx: ServiceContext): Pick<WorkbenchHandlers, 'appInfo'> {
  return {
    appInfo: async () => ({
      name: 'Context Workbench',
      version: ctx.host.version,
      host: ctx.host.kind,
      platform: process.platform,
      contextsRoot: ctx.store.root,
      configFile: ctx.loadConfig().file,
      versions: { node: process.versions.node, ...ctx.host.versions },
      startedAt: ctx.startedAt,
    }),
  };
}
