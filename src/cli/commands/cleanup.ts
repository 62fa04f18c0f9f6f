import type { Command } from 'commander';
import { cleanupTasks } from '../../core/store/cleanup';
import { resolveContext, withStore, type GlobalOptions } from '../cli-context';
import { formatTable, formatTime, printJson, type Output } from '../output';
import { parseCount } from '../parse-args';

export function registerCleanup(program: Command, output: Output): void {
  program
    .command('cleanup')
    .description(
      'remove completed and failed tasks that ended more than N days ago (tasks.db rows and folders together)',
    )
    .option('--days <n>', 'age in days (default: cleanup_days from the config, 30)')
    .option('--dry-run', 'list what would be removed, remove nothing')
    .option('--json', 'print JSON')
    .action(async (opts: { days?: string; dryRun?: boolean; json?: boolean }, cmd: Command) => {
      const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
      const days =
        opts.days === undefined
          ? ctx.config.storage.cleanup_days
          : parseCount('--days', opts.days, 0);
      await withStore(ctx, (store) => {
        const result = cleanupTasks(store, { days, dryRun: opts.dryRun === true });
        if (opts.json) {
          printJson(output, { days, ...result });
          return;
        }
        const verb = result.dryRun ? 'Would remove' : 'Removed';
        if (result.removed.length === 0) {
          output.out(
            `Nothing to remove: no task ended before ${formatTime(result.cutoff)} UTC (${days} days ago).`,
          );
          return;
        }
        output.out(
          formatTable(
            ['ID', 'STATUS', 'ENDED (UTC)', 'TITLE'],
            result.removed.map((t) => [
              t.uuid,
              t.status,
              formatTime(t.completed_at),
              t.title ?? '',
            ]),
          ),
        );
        output.out(
          `${verb} ${result.removed.length} task${result.removed.length === 1 ? '' : 's'} that ended more than ${days} days ago.`,
        );
      });
    });
}
