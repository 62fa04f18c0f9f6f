import type { WorkbenchHandlers } from '../../shared/api/workbench-api';
import type { ServiceContext } from '../api/service-context';
import { loadSourcesConfig } from './sources-config';
import { SourceSync, summarize, WAIT_BUSY_MS } from './source-sync';
import { watchSources, type SourceWatcher } from './source-watcher';

/** Settings' Sources section: each source's folders, sessions, last sync and errors; sync now. */
export function sourcesHandlers(
  ctx: ServiceContext,
): Pick<WorkbenchHandlers, 'listSources' | 'syncSources'> {
  // config.yaml is read on every call: `cwb sources add` in a terminal shows up at once.
  const current = (): SourceSync =>
    new SourceSync(ctx.store, loadSourcesConfig({ file: ctx.configFile, env: ctx.env }));
  return {
    listSources: async () => current().status(),
    syncSources: async ({ source }) => {
      const results = await current().syncAll(source, { waitBusyMs: WAIT_BUSY_MS });
      const uuids = [...new Set(results.flatMap((r) => r.uuids))];
      if (uuids.length > 0) ctx.events.publish({ type: 'tasks-changed', reason: 'import', uuids });
      return summarize(results);
    },
  };
}

/**
 * The live side for a host (`cwb serve`, the app): watches the configured sources and tells
 * the UI which tasks grew, through the same event hub as the task processes' events.
 */
export function startSourceWatcher(ctx: ServiceContext): SourceWatcher | undefined {
  const config = loadSourcesConfig({ file: ctx.configFile, env: ctx.env });
  if (!config.watch) return undefined;
  return watchSources(new SourceSync(ctx.store, config), {
    onSynced: (result) => {
      if (result.uuids.length > 0)
        ctx.events.publish({ type: 'tasks-changed', reason: 'import', uuids: result.uuids });
    },
  });
}
