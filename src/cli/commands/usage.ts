import type { Command } from 'commander';
import { USAGE_GROUPS, type UsageGroup, type UsageRow } from '../../shared/api/usage-api';
import { formatUsd } from '../../shared/format-cost';
import { CwbError } from '../../core/errors';
import { usageOf } from '../../core/usage/usage-of';
import { resolveContext, withStore, type GlobalOptions } from '../cli-context';
import { clip, formatCount, formatTable, printJson, type Output } from '../output';
import { parseChoice, parseCount } from '../parse-args';

interface UsageOptions {
  by: string;
  since?: string;
  until?: string;
  agent?: string;
  repo?: string;
  top: string;
  json?: boolean;
}

/** A day argument: YYYY-MM-DD and a real date. */
export function parseDayArg(flag: string, value: string): string {
  const ok = /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));
  if (!ok)
    throw new CwbError(
      'usage',
      `${flag}: expected a day like 2026-11-28, got ${JSON.stringify(value)}`,
    );
  return value;
}

export function registerUsage(program: Command, output: Output): void {
  program
    .command('usage')
    .description('tokens and cost over time, by day, week, month, model, agent or repository')
    .option('--by <group>', `group by (${USAGE_GROUPS.join(', ')})`, 'day')
    .option('--since <day>', 'first day (YYYY-MM-DD, local time)')
    .option('--until <day>', 'last day (YYYY-MM-DD, local time)')
    .option('--agent <name>', 'only tasks of this agent')
    .option('--repo <repo>', 'only tasks of this repository')
    .option('--top <n>', 'list this many of the most expensive tasks', '5')
    .option('--json', 'print JSON')
    .action(async (opts: UsageOptions, cmd: Command) => {
      const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
      const input = {
        by: parseChoice<UsageGroup>('--by', opts.by, USAGE_GROUPS),
        top: parseCount('--top', opts.top, 0, 100),
        ...(opts.since !== undefined && { since: parseDayArg('--since', opts.since) }),
        ...(opts.until !== undefined && { until: parseDayArg('--until', opts.until) }),
        ...(opts.agent !== undefined && { agent: opts.agent }),
        ...(opts.repo !== undefined && { repo: opts.repo }),
      };
      await withStore(ctx, (store) => {
        const report = usageOf(store, ctx.prices, input, { catchUpMs: Number.POSITIVE_INFINITY });
        if (opts.json) {
          printJson(output, report);
          return;
        }
        if (report.rows.length === 0) {
          output.out('No usage in this period.');
          return;
        }
        const line = (key: string, r: Omit<UsageRow, 'key'>): string[] => [
          key,
          String(r.tasks),
          formatCount(r.tokens.input),
          formatCount(r.tokens.output),
          formatCount(r.tokens.cache_read),
          formatCount(r.tokens.cache_write),
          r.cost.usd === 0 && r.cost.unknown_tokens > 0 ? 'unknown' : formatUsd(r.cost.usd),
          r.cost.unknown_tokens > 0 ? formatCount(r.cost.unknown_tokens) : '-',
        ];
        output.out(
          formatTable(
            [
              report.by.toUpperCase(),
              'TASKS',
              'INPUT',
              'OUTPUT',
              'CACHE READ',
              'CACHE WRITE',
              'COST',
              'UNPRICED TOKENS',
            ],
            [...report.rows.map((r) => line(r.key, r)), line('total', report.total)],
          ),
        );
        const t = report.total.tokens;
        const inputSide = t.input + t.cache_read + t.cache_write;
        const share = inputSide > 0 ? Math.round((t.cache_read / inputSide) * 1000) / 10 : 0;
        output.out(
          `Cache reads: ${share} % of input tokens, saving ${formatUsd(report.total.cost.saved_usd)}. Days in ${report.timeZone}; prices ${report.prices}.`,
        );
        if (report.top.length > 0) {
          output.out('\nMost expensive tasks:');
          output.out(
            formatTable(
              ['TASK', 'COST', 'MODEL', 'TITLE'],
              report.top.map((s) => [
                s.uuid,
                s.usd === null ? 'unknown' : formatUsd(s.usd),
                s.model ?? '-',
                clip(s.title ?? '', 60),
              ]),
            ),
          );
        }
      });
    });
}
