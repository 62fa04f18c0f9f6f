import type { Command } from 'commander';
import { TASK_STATUSES, type TaskStatus } from '../../shared/task-types';
import { SORTABLE_COLUMNS, type SortColumn } from '../../core/db/task-repository';
import { CwbError } from '../../core/errors';
import { resolveContext, withStore, type GlobalOptions } from '../cli-context';
import { formatCount, formatTable, formatTime, printJson, type Output } from '../output';
import { parseCount, parseChoice } from '../parse-args';
import { costRates, rowCost } from '../../core/cost';
import { formatCost } from '../../shared/format-cost';

interface TasksOptions {
  status?: string;
  repo?: string;
  user?: string;
  model?: string;
  agent?: string;
  host?: string;
  search?: string;
  limit: string;
  offset: string;
  sort: string;
  order: string;
  json?: boolean;
}

export function registerTasks(program: Command, output: Output): void {
  program
    .command('tasks')
    .description('list tasks, newest first')
    .option('--status <list>', `comma-separated statuses (${TASK_STATUSES.join(', ')})`)
    .option('--repo <repo>', 'repository name or owner/repo')
    .option('--user <user>', 'user name')
    .option('--model <model>', 'model name')
    .option('--agent <name>', 'the agent that wrote the task (claude-code, codex, ...)')
    .option(
      '--host <name>',
      'the host holding the task (a fleet index; tasks.db: the host that ran it)',
    )
    .option('--search <text>', 'text in the title or prompt')
    .option('--limit <n>', 'at most this many tasks', '50')
    .option('--offset <n>', 'skip this many tasks', '0')
    .option('--sort <column>', `sort column (${SORTABLE_COLUMNS.join(', ')})`, 'created_at')
    .option('--order <order>', 'asc or desc', 'desc')
    .option('--json', 'print JSON')
    .action(async (opts: TasksOptions, cmd: Command) => {
      const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
      const query = {
        ...(opts.status !== undefined && { status: parseStatuses(opts.status) }),
        ...(opts.repo !== undefined && { repo: opts.repo }),
        ...(opts.user !== undefined && { user: opts.user }),
        ...(opts.model !== undefined && { model: opts.model }),
        ...(opts.search !== undefined && { search: opts.search }),
        ...(opts.agent !== undefined && { agent: opts.agent }),
        ...(opts.host !== undefined && { host: opts.host }),
        limit: parseCount('--limit', opts.limit, 1, 10_000),
        offset: parseCount('--offset', opts.offset, 0),
        sort: parseChoice<SortColumn>('--sort', opts.sort, SORTABLE_COLUMNS),
        order: parseChoice<'asc' | 'desc'>('--order', opts.order, ['asc', 'desc']),
      };
      await withStore(ctx, (store) => {
        const { rows, total } = store.listTasks({
          ...query,
          ...(query.sort === 'cost' && { costRates: costRates(store.repo, ctx.prices) }),
        });
        const costs = rows.map((r) => rowCost(r, ctx.prices));
        if (opts.json) {
          printJson(output, {
            total,
            offset: query.offset,
            tasks: rows.map((r, i) => ({ ...r, cost: costs[i] })),
            prices: { version: ctx.prices.version, overrides: ctx.prices.overrides },
          });
          return;
        }
        if (rows.length === 0) {
          output.out(
            total === 0 ? `No tasks in ${ctx.root}.` : `No tasks on this page (${total} match).`,
          );
          return;
        }
        output.out(
          formatTable(
            ['ID', 'STATUS', 'UPDATED (UTC)', 'MSGS', 'TOKENS', 'COST', 'REPO', 'TITLE'],
            rows.map((r, i) => [
              r.uuid,
              r.status,
              formatTime(r.updated_at),
              formatCount(r.total_messages),
              formatCount(r.total_tokens),
              formatCost(costs[i]!),
              r.repository || '-',
              r.title ?? r.prompt ?? '',
            ]),
          ),
        );
        output.out(`${query.offset + 1}–${query.offset + rows.length} of ${total} tasks`);
      });
    });
}

function parseStatuses(value: string): TaskStatus[] {
  const parts = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of parts) {
    if (!(TASK_STATUSES as readonly string[]).includes(s)) {
      throw new CwbError(
        'usage',
        `--status: ${JSON.stringify(s)} is not a status (use ${TASK_STATUSES.join(', ')})`,
      );
    }
  }
  return parts as TaskStatus[];
}
