import type { Command } from 'commander';
import type { CurrentMessage, MessageRecord } from '../../shared/task-types';
import { resolveContext, withStore, type GlobalOptions } from '../cli-context';
import { printJson, indent, type Output } from '../output';
import { parseCount } from '../parse-args';
import { parseTaskUuidArg } from '../task-uuid-arg';

interface MessagesOptions {
  from: string;
  limit: string;
  current?: boolean;
  full?: boolean;
  json?: boolean;
}

const PREVIEW_CHARS = 2000;

export function registerMessages(program: Command, output: Output): void {
  program
    .command('messages')
    .description(
      "print a window of a task's messages (the full history, or with --current what the model sees now)",
    )
    .argument('<uuid>', 'task id')
    .option('--from <seq>', 'first seq (or line of current.jsonl with --current)', '1')
    .option('--limit <n>', 'at most this many messages', '50')
    .option('--current', 'read current.jsonl (the context the model sees now)')
    .option('--full', 'do not shorten long contents')
    .option('--json', 'print JSON')
    .action(async (uuidArg: string, opts: MessagesOptions, cmd: Command) => {
      const uuid = parseTaskUuidArg(uuidArg);
      const from = parseCount('--from', opts.from, 1);
      const limit = parseCount('--limit', opts.limit, 1, 100_000);
      const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
      await withStore(ctx, (store) => {
        const reader = store.readTask(uuid);
        const window = opts.current ? reader.current(from, limit) : reader.messages(from, limit);
        for (const bad of window.bad)
          output.err(`cwb: warning: ${bad.file} line ${bad.lineNo}: ${bad.error} (skipped)`);
        if (opts.json) {
          printJson(output, {
            uuid,
            view: opts.current ? 'current' : 'history',
            from,
            total: window.total,
            messages: window.messages,
          });
          return;
        }
        if (window.messages.length === 0) {
          output.out(
            window.total === 0
              ? 'No messages yet.'
              : `No messages from ${from} (the task has ${window.total}).`,
          );
          return;
        }
        const blocks = window.messages.map((m) => formatMessage(m, opts.full === true));
        output.out(blocks.join('\n\n'));
      });
    });
}

function formatMessage(
  m: MessageRecord | (CurrentMessage & { index: number }),
  full: boolean,
): string {
  const head =
    'seq' in m
      ? `#${m.seq} ${m.role}${m.kind ? ` (${m.kind})` : ''}  ${m.timestamp}  ~${m.tokens} tokens`
      : `[${m.index}] ${m.role}`;
  const tool = m.tool_name ? `  tool ${m.tool_name}` : '';
  const callId = m.tool_call_id ? `  for ${m.tool_call_id}` : '';
  const content = m.content ?? '';
  const shown =
    full || content.length <= PREVIEW_CHARS
      ? content
      : `${content.slice(0, PREVIEW_CHARS)}… (${content.length - PREVIEW_CHARS} more characters; --full shows all)`;
  const calls = (m.tool_calls ?? []).map(
    (c) => `  → ${c.function.name}(${c.function.arguments}) [${c.id}]`,
  );
  return [head + tool + callId, ...(shown ? [indent(shown)] : []), ...calls].join('\n');
}
