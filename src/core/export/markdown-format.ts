/**
 * Pure formatting of a task transcript as Markdown, one block at a time (the exporter
 * streams blocks; nothing here sees more than one message or record). Every message has a
 * `### #seq · role` heading and its text quoted; compaction summaries, truncation markers,
 * inherited context and reasoning carry a ⟪LABEL⟫ in that heading; tool calls and tool
 * results are fenced blocks with ⟪TOOL CALL⟫ / ⟪TOOL RESULT⟫ labels.
 */
import type {
  CurrentMessage,
  MessageRecord,
  PlanningEntry,
  SummaryRecord,
  TaskRow,
  ToolRecord,
} from '../../shared/task-types';
import { REASONING_NAME } from '../import/types';

export function fenceFor(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

export function fenced(text: string, lang = ''): string {
  const fence = fenceFor(text);
  return `${fence}${lang}\n${text}${text.endsWith('\n') ? '' : '\n'}${fence}`;
}

export function quoted(text: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
}

/** Inline code that survives backticks in the text. */
export function code(text: string): string {
  const fence = '`'.repeat(
    Math.max(1, (text.match(/`+/g) ?? []).reduce((m, r) => Math.max(m, r.length), 0) + 1),
  );
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

function prettyArguments(args: string): { text: string; lang: string } {
  try {
    return { text: JSON.stringify(JSON.parse(args) as unknown, null, 2), lang: 'json' };
  } catch {
    return { text: args, lang: '' };
  }
}

function utc(iso: string | null | undefined): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : '-';
}

function n(value: number | null | undefined): string {
  return value === null || value === undefined ? '-' : value.toLocaleString('en-US');
}

export function headerBlock(
  row: TaskRow,
  source: Record<string, unknown> | undefined,
  view: 'history' | 'current',
): string {
  const lines = [
    `# ${(row.title ?? '').replace(/\s+/g, ' ').trim() || `Task ${row.uuid}`}`,
    '',
    `- **Task** ${code(row.uuid)} · ${row.status}${row.error_message ? ` (${row.error_message})` : ''}`,
    `- **Created** ${utc(row.created_at)} · **ended** ${utc(row.completed_at)}`,
  ];
  if (row.model || row.llm_provider)
    lines.push(`- **Model** ${[row.llm_provider, row.model].filter(Boolean).join(' / ')}`);
  if (row.workdir) lines.push(`- **Working directory** ${code(row.workdir)}`);
  if (row.parent_uuid) lines.push(`- **Parent task** ${code(row.parent_uuid)}`);
  if (source && typeof source.format === 'string') {
    const file = typeof source.file === 'string' ? ` · ${code(source.file)}` : '';
    lines.push(`- **Imported from** ${source.format}${file}`);
  }
  lines.push(
    `- **Messages** ${n(row.total_messages)} in the history, ${n(row.final_message_count)} in the current context · **tool calls** ${n(row.tool_call_count)} · **LLM calls** ${n(row.llm_call_count)} · **compactions** ${n(row.compression_count)}`,
    `- **Tokens** ${n(row.total_tokens)} total (input ${n(row.input_tokens)}, output ${n(row.output_tokens)}, cache write ${n(row.cache_creation_tokens)}, cache read ${n(row.cache_read_tokens)})`,
    '',
    view === 'history'
      ? '## Messages (full history, messages.jsonl)'
      : '## Messages (current context, current.jsonl: what the model sees now)',
    '',
  );
  return `${lines.join('\n')}\n`;
}

/** One message; `label` is `#seq` for the history or `[line]` for the current context. */
export function messageBlock(m: MessageRecord | CurrentMessage, label: string): string {
  const record = 'seq' in m ? m : undefined;
  const head: string[] = [`### ${label} · ${m.role}`];
  let body: string;
  const content = m.content ?? '';
  if (record?.kind === 'summary') {
    head.push('⟪SUMMARY⟫ compaction summary');
    body = quoted(content);
  } else if (record?.kind === 'truncation-marker') {
    head.push('⟪TRUNCATION MARKER⟫ messages hidden from the context');
    body = quoted(content);
  } else if (record?.kind === 'inheritance') {
    head.push('⟪INHERITED CONTEXT⟫ from a previous task');
    body = quoted(content);
  } else if (m.role === 'assistant' && m.name === REASONING_NAME) {
    head.push('⟪REASONING⟫');
    body = quoted(content);
  } else if (m.role === 'tool') {
    head.push(
      `⟪TOOL RESULT⟫${m.tool_name ? ` ${code(m.tool_name)}` : ''}${m.tool_call_id ? ` for ${code(m.tool_call_id)}` : ''}`,
    );
    body = fenced(content, 'text');
  } else {
    // Quoted, so headings and rules inside a message cannot break the transcript's outline.
    if (m.name) head.push(`name ${code(m.name)}`);
    body = quoted(content);
  }
  if (record) head.push(`${utc(record.timestamp)} · ~${n(record.tokens)} tokens`);
  const parts = [head.join(' · '), ''];
  // A tool result is shown even when empty; other messages only when they have text.
  if (m.role === 'tool' || content.trim() !== '') parts.push(body, '');
  for (const call of m.tool_calls ?? []) {
    const args = prettyArguments(call.function.arguments);
    parts.push(
      `**⟪TOOL CALL⟫ ${code(call.function.name)}** id ${code(call.id)}`,
      '',
      fenced(args.text, args.lang),
      '',
    );
  }
  return `${parts.join('\n')}\n`;
}

export function badLineBlock(file: string, lineNo: number, error: string): string {
  return `> ⚠ ${file} line ${lineNo} could not be read and is left out: ${error}\n\n`;
}

export function summariesHeading(): string {
  return '## Compactions (summaries.jsonl)\n\n';
}

export function summaryBlock(s: SummaryRecord): string {
  const head = `### ⟪COMPACTION⟫ ${s.id} · ${s.strategy} · messages #${s.start_seq}–#${s.end_seq} · ~${n(s.original_tokens)} → ~${n(s.summary_tokens)} tokens · ${utc(s.created_at ?? s.timestamp)}`;
  return `${head}\n\n${s.summary ? quoted(s.summary) : '_(no summary text)_'}\n\n`;
}

export function toolsHeading(): string {
  return '## Tool executions (tools.jsonl)\n\n| # | tool | status | duration | arguments |\n|---|---|---|---|---|\n';
}

const ARGS_PREVIEW = 160;

export function toolRow(t: ToolRecord): string {
  const json = JSON.stringify(t.args ?? t.arguments ?? null) ?? 'null';
  const preview = json.length > ARGS_PREVIEW ? `${json.slice(0, ARGS_PREVIEW - 1)}…` : json;
  const cell = (s: string): string =>
    s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const status =
    t.status === 'error'
      ? `**error**${t.error ? `: ${cell(t.error.slice(0, 80))}` : ''}`
      : t.status;
  return `| ${t.seq} | ${cell(t.tool ?? t.tool_name)} | ${status} | ${n(t.duration_ms)} ms | ${code(cell(preview))} |\n`;
}

export function planningHeading(): string {
  return '\n## Plan (planning.jsonl)\n\n';
}

export function planningBlock(p: PlanningEntry): string {
  return `- **${p.plan_type}** (${utc(p.created_at)})\n\n${quoted(p.plan_content)}\n\n`;
}

export function finalSummaryBlock(text: string): string {
  return `\n## Final summary (final_summary.txt)\n\n${text}\n`;
}
