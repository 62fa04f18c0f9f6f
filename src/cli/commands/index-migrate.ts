import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { migrateIndex } from '../../core/db/index-migration';
import { openDatabase } from '../../core/db/open-database';
import { assertIndexUrl, hostName } from '../../core/db/open-task-index';
import { PgTaskRepository } from '../../core/db/pg-task-repository';
import { DATABASE_FILE } from '../../core/store/contexts-layout';
import { folderIdentity } from '../../core/store/folder-identity';
import { CwbError } from '../../core/errors';
import { resolveContext, type GlobalOptions } from '../cli-context';
import { printJson, type Output } from '../output';

/** `cwb index migrate --to postgres://…`: this host's tasks.db into a fleet's index (docs/fleet.md). */
export function registerIndex(program: Command, output: Output): void {
  const index = program
    .command('index')
    .description('the task index: tasks.db, or PostgreSQL for a fleet of hosts');
  index
    .command('migrate')
    .description(
      "copy this contexts folder's tasks.db into a PostgreSQL task index (every row, counters exact; run again to resume)",
    )
    .requiredOption('--to <url>', 'the PostgreSQL index, postgres://user@host/db')
    .option('--host <name>', 'the host these tasks belong to (default: $CWB_HOST or this host)')
    .option('--json', 'print JSON')
    .action(async (opts: { to: string; host?: string; json?: boolean }, cmd: Command) => {
      assertIndexUrl(opts.to);
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const ctx = resolveContext({ ...globals, index: undefined });
      const file = path.join(ctx.root, DATABASE_FILE);
      if (!fs.existsSync(file))
        throw new CwbError('not_found', `no ${DATABASE_FILE} in ${ctx.root}`);
      const source = openDatabase(file, { readonly: true });
      let target: PgTaskRepository | undefined;
      try {
        const host = opts.host ?? hostName();
        // The rows become this contexts folder's (its id, made now if it has none).
        const folder = { id: folderIdentity(ctx.root, host).id, root: ctx.root };
        target = new PgTaskRepository(opts.to, { host, folder });
        const report = migrateIndex(source, target, (copied, total) => {
          if (!opts.json && (copied % 10_000 < 500 || copied === total))
            output.err(`copied ${copied} of ${total} rows`);
        });
        if (opts.json) printJson(output, report);
        else {
          output.out(
            `${report.rows} tasks of ${report.host} in ${target.location}` +
              (report.resumedFrom ? ` (resumed after row ${report.resumedFrom})` : '') +
              (report.verified ? '; every row and counter verified.' : '.'),
          );
          if (report.verified)
            output.out(
              `Next: set "index: ${target.location}" in config.yaml on every host (docs/fleet.md).`,
            );
        }
        if (!report.verified) {
          throw new CwbError(
            'conflict',
            `the copy differs from ${file} (was a task running?): ${report.mismatches.slice(0, 5).join('; ')}; run the command again`,
          );
        }
      } finally {
        target?.close();
        source.close();
      }
    });
}
