import type { Command } from 'commander';
import type { ContextPart } from '../../shared/api/task-view-api';
import { contextBreakdown } from '../../core/usage/context-breakdown';
import { ownToolDefinitions } from '../../core/usage/own-tool-definitions';
import { resolveContext, withStore, type GlobalOptions } from '../cli-context';
import { printJson, type Output } from '../output';
import { parseCount } from '../parse-args';
import { parseTaskUuidArg } from '../task-uuid-arg';

interface ContextOptions {
  at?: string;
  top: string;
  json?: boolean;
}

/** People's names of the parts (tool outputs carry their tool's name). */
const PART_LABELS: Record<ContextPart['kind'], string> = {
  system: 'system prompt',
  'tool-definitions': 'tool definitions',
  unrecorded: 'not in the transcript',
  summary: 'summaries',
  user: 'user messages',
  attachments: 'attachments',
  assistant: 'assistant text',
  thinking: 'thinking',
  'tool-calls': 'tool calls',
  'tool-output': 'tool output',
};

export function registerContext(program: Command, output: Output): void {
  program
    .command('context')
    .description(
      "what fills a task's context, now or right after a message: system prompt, tools, messages, tool outputs by tool, summaries",
    )
    .argument('<uuid>', 'task id')
    .option('--at <seq>', 'the context right after this message (default: now)')
    .option('--top <n>', 'list this many of the biggest messages of each part', '3')
    .option('--json', 'print JSON (total_tokens and parts of {kind, tokens} that add up to it)')
    .action(async (uuidArg: string, opts: ContextOptions, cmd: Command) => {
      const uuid = parseTaskUuidArg(uuidArg);
      const at = opts.at === undefined ? undefined : parseCount('--at', opts.at, 1);
      const top = parseCount('--top', opts.top, 0, 50);
      const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
      await withStore(ctx, (store) => {
        const reader = store.readTask(uuid);
        const breakdown = contextBreakdown(reader.dir, {
          ...(at !== undefined && { at }),
          top,
          toolDefinitions: ownToolDefinitions(reader.row, () => ctx.config),
        });
        if (opts.json) {
          printJson(output, { uuid, ...breakdown });
          return;
        }
        const where = breakdown.at_seq === null ? 'now' : `after message #${breakdown.at_seq}`;
        output.out(
          `Context ${where}: ${breakdown.total_tokens.toLocaleString('en-US')} tokens in ${breakdown.parts.length} parts`,
        );
        const width = Math.max(...breakdown.parts.map((p) => labelOf(p).length), 10);
        for (const p of breakdown.parts) {
          const share = breakdown.total_tokens
            ? ((100 * p.tokens) / breakdown.total_tokens).toFixed(1)
            : '0.0';
          output.out(
            `  ${labelOf(p).padEnd(width)}  ${p.tokens.toLocaleString('en-US').padStart(9)}  ${share.padStart(5)} %  ${p.messages} message${p.messages === 1 ? '' : 's'}`,
          );
          for (const b of p.biggest)
            output.out(
              `      ${b.seq === null ? '   -' : `#${b.seq}`.padStart(6)} ${b.tokens.toLocaleString('en-US').padStart(8)}  ${b.preview.slice(0, 90)}`,
            );
        }
        if (breakdown.parts.some((p) => p.kind === 'unrecorded'))
          output.out(
            `"Not in the transcript": what the agent's last call (#${breakdown.reported!.seq}) counted in its input beyond the messages before it: its system prompt, tool definitions and memory files, which its session does not record.`,
          );
      });
    });
}

function labelOf(p: ContextPart): string {
  return p.tool === undefined ? PART_LABELS[p.kind] : `${PART_LABELS[p.kind]}: ${p.tool}`;
}
