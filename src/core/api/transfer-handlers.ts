import fs from 'node:fs';
import type { WorkbenchHandlers } from '../../shared/api/workbench-api';
import { estimateExport, exportTasks, redactionFor } from '../export';
import { importPaths } from '../import';
import type { ServiceContext } from './service-context';

export function transferHandlers(
  ctx: ServiceContext,
): Pick<WorkbenchHandlers, 'exportTasks' | 'estimateExport' | 'importFiles'> {
  return {
    // Synchronous but bounded: a few windows of each file, whatever the tasks' sizes.
    estimateExport: async ({ uuids, format, current }) =>
      estimateExport(ctx.store, { uuids, format, current }),

    exportTasks: async ({ uuids, format, current, output, redaction }) => {
      const target = output ?? ctx.exportDir;
      if (output === undefined) await fs.promises.mkdir(target, { recursive: true });
      // Always a file or a folder: an export never goes to the host's stdout.
      const result = await exportTasks(ctx.store, {
        uuids,
        format,
        current,
        output: target,
        redaction: redactionFor(format, redaction, () => ctx.loadConfig().config, ctx.env),
        version: ctx.host.version,
      });
      return {
        format: result.format,
        redactions: result.redactions,
        files: result.files.map((f) => ({
          path: f.path ?? target,
          bytes: f.bytes,
          tasks: f.tasks,
        })),
      };
    },

    importFiles: async ({ paths, format, onConflict }) => {
      const run = await importPaths(ctx.store, paths, { format, onConflict });
      const uuids = run.results.flatMap((r) => r.tasks.map((t) => t.uuid));
      if (uuids.length) ctx.events.publish({ type: 'tasks-changed', reason: 'import', uuids });
      return run;
    },
  };
}
