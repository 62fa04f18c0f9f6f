import type { Command } from 'commander';
import { STRATEGY_NAMES } from '../../shared/strategy-names';
import { compactTask, rewindTask, undoTaskCompaction } from '../../core/compaction/task-compaction';
import type { CompactionRun, StepReport } from '../../core/compaction/compaction-engine';
import { allRecords, type CompactionRecord } from '../../core/compaction/compaction-record';
import { collectToolOutputs } from '../../core/compaction/tool-output-gc';
import { resolveContext, withStore, type GlobalOptions } from '../cli-context';
import {
  OUTPUT_WIDTH,
  clip,
  formatCount,
  formatTable,
  formatTime,
  printJson,
  wrapPieces,
  type Output,
} from '../output';
import { describeQuality } from '../describe-quality';
import { describeNeededNext } from '../needed-next-report';
import { neededNextOfRun } from '../../core/compaction/needed-next-info';
import { CwbError } from '../../core/errors';
import { parseCount, parseStrategies } from '../parse-args';
import { parseTaskUuidArg } from '../task-uuid-arg';

export function registerCompaction(program: Command, output: Output): void {
  program
    .command('compact')
    .description(
      "compact a task's context now (a running task is asked to do it after its current step)",
    )
    .argument('<uuid>', 'task id')
    .option(
      '--strategy <list>',
      `comma-separated strategies (${STRATEGY_NAMES.join(', ')}); default: the config's`,
    )
    .option('--dry-run', 'show what would happen: no LLM call, nothing written')
    .option('--offline', 'summarize with the extractive digest instead of the model')
    .option(
      '--at <seq>',
      'with --dry-run: start from the context as it was at this message and score the result by what the agent needed next (FRR)',
    )
    .option('--json', 'print JSON')
    .action(
      async (
        uuidArg: string,
        opts: {
          strategy?: string;
          dryRun?: boolean;
          offline?: boolean;
          at?: string;
          json?: boolean;
        },
        cmd: Command,
      ) => {
        const uuid = parseTaskUuidArg(uuidArg);
        const pipeline =
          opts.strategy === undefined ? undefined : parseStrategies('--strategy', opts.strategy);
        const atSeq =
          opts.at === undefined
            ? undefined
            : parseCount('--at', opts.at, 1, Number.MAX_SAFE_INTEGER);
        if (atSeq !== undefined && opts.dryRun !== true)
          throw new CwbError(
            'usage',
            '--at goes with --dry-run: a past point is only ever previewed',
          );
        const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
        const outcome = await withStore(ctx, async (store) => {
          const done = await compactTask(store, ctx.config, uuid, {
            dryRun: opts.dryRun === true,
            offline: opts.offline === true,
            ...(pipeline && { pipeline }),
            ...(atSeq !== undefined && { atSeq }),
          });
          if (done.kind !== 'ran' || !done.point) return { ...done, neededNext: undefined };
          const row = store.requireTask(uuid);
          return { ...done, neededNext: neededNextOfRun(done.point, done.run, row) };
        });
        if (outcome.kind === 'requested') {
          if (opts.json) printJson(output, { uuid, requested: true });
          else output.out(`task ${uuid} is running: it will compact after its current step`);
          return;
        }
        const { view: _view, ...run } = outcome.run;
        const at = outcome.point && { atSeq: outcome.point.endSeq, neededNext: outcome.neededNext };
        if (opts.json) printJson(output, { ...run, ...at });
        else {
          output.out(describeRun(outcome.run));
          if (outcome.neededNext) output.out(describeNeededNext(outcome.neededNext, atSeq!));
        }
      },
    );

  program
    .command('compactions')
    .description('list the compactions of a task, newest last (undone ones marked)')
    .argument('<uuid>', 'task id')
    .option('--json', 'print JSON (with each plan)')
    .action(async (uuidArg: string, opts: { json?: boolean }, cmd: Command) => {
      const uuid = parseTaskUuidArg(uuidArg);
      const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
      const records = await withStore(ctx, (store) => allRecords(store.readTask(uuid).dir));
      if (opts.json) {
        printJson(output, { uuid, compactions: records });
        return;
      }
      if (records.length === 0) {
        output.out('No compactions yet.');
        return;
      }
      output.out(
        formatTable(
          ['ID', 'STRATEGY', 'WHEN (UTC)', 'SEQS', 'TOKENS', 'STATE', 'SUMMARY'],
          records.map((r) => [
            String(r.id),
            r.strategy,
            formatTime(r.created_at),
            r.start_seq ? `${r.start_seq}–${r.end_seq}` : '-',
            recordTokens(r),
            r.undone ? 'undone' : r.agent_compaction ? "agent's own" : 'in effect',
            typeof r.note === 'string' ? `(${r.note}) ${r.summary}` : r.summary,
          ]),
        ),
      );
    });

  program
    .command('gc')
    .description(
      'remove full tool outputs (tool_outputs/) that nothing in effect refers to any more',
    )
    .argument('<uuid>', 'task id')
    .option('--dry-run', 'list them, remove nothing')
    .option('--json', 'print JSON')
    .action(async (uuidArg: string, opts: { dryRun?: boolean; json?: boolean }, cmd: Command) => {
      const uuid = parseTaskUuidArg(uuidArg);
      const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
      const refs = await withStore(ctx, (store) => {
        const task = store.openForMaintenance(uuid);
        try {
          return collectToolOutputs(task.dir, task.toolOutputs, { dryRun: opts.dryRun === true });
        } finally {
          task.close();
        }
      });
      if (opts.json) printJson(output, { uuid, dryRun: opts.dryRun === true, refs });
      else
        output.out(
          refs.length
            ? `${opts.dryRun ? 'Would remove' : 'Removed'} ${refs.length} unreferenced tool outputs: ${refs.join(', ')}`
            : 'No unreferenced tool outputs.',
        );
    });

  program
    .command('undo')
    .description('undo a compaction (and the later ones built on it); nothing is deleted')
    .argument('<uuid>', 'task id')
    .argument('<id>', 'compaction id (see cwb compactions)')
    .option('--json', 'print JSON')
    .action(async (uuidArg: string, idArg: string, opts: { json?: boolean }, cmd: Command) => {
      const uuid = parseTaskUuidArg(uuidArg);
      const id = parseCount('<id>', idArg, 1);
      const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
      const result = await withStore(ctx, (store) => undoTaskCompaction(store, uuid, id));
      if (opts.json) printJson(output, result);
      else
        output.out(
          `Undid compaction${result.undone.length > 1 ? 's' : ''} ${result.undone.join(', ')}: context ${formatCount(result.tokensBefore)} → ${formatCount(result.tokensAfter)} tokens.`,
        );
    });

  program
    .command('rewind')
    .description(
      'take the context back to just after message SEQ (later messages stay in the history)',
    )
    .argument('<uuid>', 'task id')
    .requiredOption('--to-seq <seq>', 'the last message seq to keep in the context')
    .option('--json', 'print JSON')
    .action(async (uuidArg: string, opts: { toSeq: string; json?: boolean }, cmd: Command) => {
      const uuid = parseTaskUuidArg(uuidArg);
      const seq = parseCount('--to-seq', opts.toSeq, 1);
      const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
      const result = await withStore(ctx, (store) => rewindTask(store, uuid, seq));
      if (opts.json) printJson(output, result);
      else
        output.out(
          `Rewound to message ${seq} (record ${result.recordId}): ${result.hiddenSeqs.length} later messages left the context${result.undone.length ? `, compactions ${result.undone.join(', ')} undone` : ''}; ${formatCount(result.tokensBefore)} → ${formatCount(result.tokensAfter)} tokens. Undo it with: cwb undo ${uuid} ${result.recordId}`,
        );
    });
}

/**
 * Our estimates before → after; beside them, for an agent's own compaction, the agent's own
 * count of what it compacted (Claude Code's preTokens), labelled as such.
 */
function recordTokens(r: CompactionRecord): string {
  const agent =
    r.agent_tokens_before ?? (typeof r.pre_tokens === 'number' ? r.pre_tokens : undefined);
  const ours =
    r.tokens_before === undefined && r.tokens_after === undefined
      ? '-'
      : `${formatCount(r.tokens_before)} → ${formatCount(r.tokens_after)}${r.token_counter === 'estimate' ? ' est.' : ''}`;
  return agent === undefined ? ours : `${ours} (agent: ${formatCount(agent)} before)`;
}

function describeRun(run: CompactionRun): string {
  const head = `${run.dryRun ? 'Dry run' : 'Compacted'}: ${formatCount(run.tokensBefore)} → ${formatCount(run.tokensAfter)} tokens${run.dryRun && run.steps.some((s) => s.estimated) ? ' (estimated: the LLM summary is not written in a dry run)' : ''}`;
  const lines = [head, ...run.steps.flatMap(describeStep)];
  // With one applied step the run replaced the same span: its figures would repeat the step's.
  if (run.quality && run.steps.filter((s) => s.applied).length > 1) {
    lines.push('  whole run:', ...describeQuality(run.quality, '    '));
  }
  return lines.join('\n');
}

function describeStep(step: StepReport): string[] {
  if (!step.applied) {
    return wrapPieces(
      `${step.strategy}: skipped — ${step.reason ?? ''}`.split(/\s+/),
      '  ',
      '    ',
    );
  }
  const parts = [
    step.replacedSeqs.length ? `${step.replacedSeqs.length} messages replaced` : undefined,
    step.changedSeqs.length ? `${step.changedSeqs.length} shortened` : undefined,
    step.created.length ? `${step.created.length} added` : undefined,
  ].filter(Boolean);
  const record = step.recordId ? ` [compaction ${step.recordId}]` : '';
  return [
    `  ${step.strategy}${record}: ${parts.join(', ')}; ${formatCount(step.tokensBefore)} → ${formatCount(step.tokensAfter)} tokens`,
    ...wrapPieces(clip(step.summary ?? '', 2 * OUTPUT_WIDTH).split(/\s+/), '    '),
    ...(step.quality ? describeQuality(step.quality, '    ') : []),
  ];
}
