import type { Command } from 'commander';
import { resolveContext, withStore, type GlobalOptions } from '../cli-context';
import { formatCount, printJson, indent, type Output } from '../output';
import { parseTaskUuidArg } from '../task-uuid-arg';
import { allRecords } from '../../core/compaction/compaction-record';
import { taskCost } from '../../core/cost';
import { formatCost } from '../../shared/format-cost';

export function registerShow(program: Command, output: Output): void {
  program
    .command('show')
    .description('show one task: key, status, statistics and where its files are')
    .argument('<uuid>', 'task id')
    .option('--json', 'print JSON')
    .action(async (uuidArg: string, opts: { json?: boolean }, cmd: Command) => {
      const uuid = parseTaskUuidArg(uuidArg);
      const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
      await withStore(ctx, (store) => {
        const reader = store.readTask(uuid);
        const row = reader.row;
        const finalSummary = reader.finalSummary() ?? null;
        const cost = taskCost(row, allRecords(reader.dir), ctx.prices);
        if (opts.json) {
          printJson(output, {
            task: row,
            dir: reader.dir,
            metadata: reader.metadata() ?? null,
            final_summary: finalSummary,
            cost,
          });
          return;
        }
        const key = [row.task_source, row.repository, row.task_type, row.task_id]
          .filter(Boolean)
          .join(' / ');
        const lines = [
          `${row.uuid}  ${row.status}${row.error_message ? ` (${row.error_message})` : ''}`,
          row.title ? `title:       ${row.title}` : undefined,
          key ? `key:         ${key}${row.user ? `  user ${row.user}` : ''}` : undefined,
          row.model
            ? `model:       ${[row.llm_provider, row.model].filter(Boolean).join(' / ')}${row.context_length ? ` (${formatCount(row.context_length)} context)` : ''}`
            : undefined,
          `created:     ${row.created_at}`,
          `updated:     ${row.updated_at}`,
          row.completed_at ? `ended:       ${row.completed_at}` : undefined,
          row.parent_uuid ? `parent:      ${row.parent_uuid}` : undefined,
          `messages:    ${row.total_messages}  summaries ${row.total_summaries}  compactions ${row.compression_count}`,
          `calls:       ${row.llm_call_count} LLM, ${row.tool_call_count} tool`,
          `tokens:      ${row.total_tokens} total (in ${row.input_tokens}, out ${row.output_tokens}, cache write ${row.cache_creation_tokens}, cache read ${row.cache_read_tokens})`,
          `cost:        ${formatCost(cost.total)}  (prices of ${cost.prices.version}${cost.prices.overrides ? `, ${cost.prices.overrides} from config.yaml` : ''})`,
          ...cost.models.map(
            (m) =>
              `  ${(m.model ?? '(no model)').padEnd(28)} ${formatCost(m.cost).padStart(10)}  in ${m.input_tokens}, out ${m.output_tokens}, cache write ${m.cache_creation_tokens}, cache read ${m.cache_read_tokens}`,
          ),
          ...cost.compactions
            .filter((c) => c.cost !== null)
            .map(
              (c) =>
                `  compaction #${c.id} ${c.strategy} (${c.model ?? 'no model'}): ${formatCost(c.cost!)}`,
            ),
          row.final_token_count !== null
            ? `final:       ${row.final_message_count} messages, ~${row.final_token_count} tokens in context`
            : undefined,
          `folder:      ${reader.dir}`,
          row.prompt ? `\nprompt:\n${indent(row.prompt)}` : undefined,
          finalSummary ? `\nfinal summary:\n${indent(finalSummary)}` : undefined,
        ];
        output.out(lines.filter((l) => l !== undefined).join('\n'));
      });
    });
}
