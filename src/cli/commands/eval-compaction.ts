import type { Command } from 'commander';
import { defaultCandidates, evaluateTask } from '../../core/compaction/evaluate-compaction';
import { summarizeCandidates } from '../../shared/compaction-eval-summary';
import { resolveContext, withStore, type GlobalOptions } from '../cli-context';
import { describeEvaluation, type EvaluatedTask } from '../eval-report';
import { clip, printJson, type Output } from '../output';
import { parseCandidates, parseCount } from '../parse-args';
import { parseTaskUuidArg } from '../task-uuid-arg';
import { CwbError } from '../../core/errors';
import {
  evaluateAgentCompactions,
  evaluateWhatIf,
} from '../../core/compaction/agent-compaction-eval';
import { describeAgentCompactions, describeWhatIf } from '../needed-next-report';

interface EvalOptions {
  strategy?: string;
  limit: string;
  perTask?: boolean;
  json?: boolean;
  agentCompactions?: boolean;
  agent?: string;
  at?: string;
}

export function registerEvalCompaction(program: Command, output: Output): void {
  program
    .command('eval-compaction')
    .description(
      'score compaction strategies on tasks (tokens saved, facts kept): offline dry runs, nothing is written',
    )
    .argument('[uuid...]', 'task ids (default: the newest tasks, up to --limit)')
    .option(
      '--strategy <list>',
      'candidates, comma-separated, + joining a pipeline (extractive,tool-output-trim+summarize); default: every strategy alone and the configured pipeline',
    )
    .option('--limit <n>', 'without task ids: the newest N tasks', '50')
    .option('--per-task', 'a table per task too (always with a single task)')
    .option(
      '--agent-compactions',
      'every compaction an agent made itself (Claude Code, Codex…): what it kept of the facts the agent needed next, beside our default pipeline run on the same prefix',
    )
    .option('--agent <id>', 'with --agent-compactions: only this agent (claude-code, codex, …)')
    .option(
      '--at <seq>',
      'with one task: run every strategy as a what-if at this past point and score it by what the agent needed next',
    )
    .option('--json', 'print JSON')
    .action(async (uuidArgs: string[], opts: EvalOptions, cmd: Command) => {
      // Everything the user typed is checked before any task is read.
      const uuids = [...new Set(uuidArgs.map(parseTaskUuidArg))];
      if (opts.agentCompactions || opts.at !== undefined) {
        await neededNextAction(uuids, opts, cmd, output);
        return;
      }
      if (opts.agent !== undefined)
        throw new CwbError('usage', '--agent goes with --agent-compactions');
      const limit = parseCount('--limit', opts.limit, 1, 10_000);
      const chosen =
        opts.strategy === undefined ? undefined : parseCandidates('--strategy', opts.strategy);
      const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
      const candidates = chosen ?? defaultCandidates(ctx.config);
      // A progress line per task helps at a terminal and would only clutter a log or a pipe.
      const progress = process.stderr.isTTY ? (line: string) => output.err(line) : undefined;
      const tasks = await withStore(ctx, async (store) => {
        const rows = uuids.length
          ? uuids.map((uuid) => store.requireTask(uuid))
          : store.listTasks({ sort: 'created_at', order: 'desc', limit }).rows;
        const evaluated: EvaluatedTask[] = [];
        for (const [i, row] of rows.entries()) {
          progress?.(`[${i + 1}/${rows.length}] ${row.uuid} ${clip(row.title ?? '', 50)}`);
          evaluated.push({
            uuid: row.uuid,
            title: row.title ?? null,
            points: await evaluateTask(store, ctx.config, row.uuid, candidates),
          });
        }
        return evaluated;
      });
      const summary = summarizeCandidates(tasks.map((t) => t.points));
      if (opts.json) {
        printJson(output, { tasks, summary });
      } else if (tasks.length === 0) {
        output.out(`No tasks in ${ctx.root}.`);
      } else {
        output.out(describeEvaluation(tasks, summary, opts.perTask === true || tasks.length === 1));
      }
    });
}

/** `--agent-compactions` and `--at`: scored by what the agent needed next (FRR). */
async function neededNextAction(
  uuids: string[],
  opts: EvalOptions,
  cmd: Command,
  output: Output,
): Promise<void> {
  if (opts.agentCompactions && opts.at !== undefined)
    throw new CwbError('usage', '--agent-compactions and --at go separately');
  if (opts.at !== undefined && uuids.length !== 1)
    throw new CwbError('usage', '--at needs exactly one task id');
  if (opts.agentCompactions && uuids.length > 0)
    throw new CwbError('usage', '--agent-compactions reads every task; give no task id');
  const at = opts.at === undefined ? undefined : parseCount('--at', opts.at, 1);
  const chosen =
    opts.strategy === undefined ? undefined : parseCandidates('--strategy', opts.strategy);
  const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
  if (at !== undefined) {
    const report = await withStore(ctx, (store) =>
      evaluateWhatIf(store, ctx.config, uuids[0]!, at, chosen ?? defaultCandidates(ctx.config)),
    );
    if (opts.json) printJson(output, report);
    else output.out(describeWhatIf(report, ctx.config.compaction.pipeline.join('+')));
    return;
  }
  const rows = await withStore(ctx, (store) =>
    evaluateAgentCompactions(store, ctx.config, {
      ...(opts.agent !== undefined && { agent: opts.agent }),
      ...(chosen?.length === 1 && { pipeline: chosen[0]! }),
    }),
  );
  if (opts.json) printJson(output, { compactions: rows });
  else output.out(describeAgentCompactions(rows));
}
