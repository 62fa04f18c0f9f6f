import type { ToolCall, TokenUsage } from '../../shared/task-types';
import { blocksOf, type ClaudeEntry, type ClaudeUsage } from './claude-code-entry';
import type { ImportReport } from './import-report';
import { TranscriptWriter, usageWithTotal } from './transcript-writer';
import { asNumber, contentText, normalizeTimestamp } from './text';
import { REASONING_NAME } from './types';

interface ResponseGroup {
  key: string;
  line: number;
  timestamp?: string;
  model?: string;
  reasoning: { text: string; timestamp?: string }[];
  texts: string[];
  toolCalls: ToolCall[];
  usage?: ClaudeUsage;
}

/**
 * Writes one thread of a Claude Code session (the main conversation or one subagent) into
 * its task. Mapping, per entry in file order:
 *
 * - `assistant` entries: Claude Code writes one entry per content block, all with the same
 *   `message.id`; consecutive entries with one id are one model response and become ONE
 *   assistant message — text blocks joined by a blank line, `tool_use` blocks as its
 *   `tool_calls` (id, name, JSON arguments). Its `usage` (repeated on every entry of the
 *   response) is counted once per response id; every response id (not `<synthetic>`) is
 *   one LLM call.
 * - `thinking` blocks: one assistant message each, `name: "reasoning"`, kept in
 *   messages.jsonl only (history-only: the model is not shown old reasoning as text), in
 *   front of the response's message. `redacted_thinking` becomes "[redacted thinking]".
 * - `user` entries: each `tool_result` block becomes a `tool` message with its
 *   `tool_call_id` and one tools.jsonl record paired with the call; the other blocks (text,
 *   images as "[image]") become one user message. A string content is one user message.
 *   Meta entries (expanded slash commands) are kept: the model saw them.
 * - Compaction: a `compact_boundary` system entry plus the `isCompactSummary` user entry
 *   that follows become one summaries.jsonl record (trigger and preTokens kept) and a user
 *   message of kind `summary`. Messages before the thread's last compaction stay in
 *   messages.jsonl but not in current.jsonl, so current.jsonl is what the model saw last.
 * - Other `system` entries are notices for the terminal, not model context: counted as
 *   ignored.
 */
export class ClaudeThread {
  private group: ResponseGroup | undefined;
  private pendingBoundary: { trigger?: string; preTokens?: number; line: number } | undefined;
  private readonly countedResponses = new Set<string>();

  constructor(
    readonly writer: TranscriptWriter,
    private readonly lastCompactLine: number,
    private readonly report: ImportReport,
  ) {}

  entry(entry: ClaudeEntry, line: number): void {
    if (entry.type === 'assistant') this.assistant(entry, line);
    else if (entry.type === 'user') {
      this.flush();
      this.user(entry, line);
    } else if (entry.type === 'system' && entry.subtype === 'compact_boundary') {
      this.flush();
      this.closeBoundary();
      this.pendingBoundary = {
        line,
        ...(entry.compactMetadata?.trigger !== undefined && {
          trigger: entry.compactMetadata.trigger,
        }),
        ...(entry.compactMetadata?.preTokens !== undefined && {
          preTokens: entry.compactMetadata.preTokens,
        }),
      };
    } else this.report.ignore(entry.subtype ? `${entry.type}:${entry.subtype}` : entry.type);
  }

  /** Ends the thread: the last response is written and unanswered tool calls recorded. */
  end(): void {
    this.flush();
    this.closeBoundary();
  }

  private historyOnly(line: number): boolean {
    return line < this.lastCompactLine;
  }

  private assistant(entry: ClaudeEntry, line: number): void {
    const message = entry.message;
    const key = message?.id ?? entry.requestId ?? entry.uuid ?? `line-${line}`;
    if (this.group && this.group.key !== key) this.flush();
    const timestamp = normalizeTimestamp(entry.timestamp);
    if (!this.group) {
      this.closeBoundary();
      this.group = {
        key,
        line,
        reasoning: [],
        texts: [],
        toolCalls: [],
        ...(timestamp !== undefined && { timestamp }),
      };
    }
    const group = this.group;
    if (message?.model !== undefined) group.model = message.model;
    if (message?.usage !== undefined) group.usage = message.usage;
    blocksOf(message?.content).forEach((block, i) => {
      if (block.type === 'text') group.texts.push(block.text);
      else if (block.type === 'thinking')
        group.reasoning.push({
          text: block.thinking,
          ...(timestamp !== undefined && { timestamp }),
        });
      else if (block.type === 'redacted_thinking')
        group.reasoning.push({
          text: '[redacted thinking]',
          ...(timestamp !== undefined && { timestamp }),
        });
      else if (block.type === 'tool_use') {
        const id = block.id ?? `toolu_line${line}_${i}`;
        group.toolCalls.push({
          id,
          type: 'function',
          function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
        });
        this.writer.startToolCall({
          id,
          name: block.name,
          args: block.input ?? {},
          ...(timestamp !== undefined && { timestamp }),
        });
      } else
        this.report.ignore(`assistant block:${block.type === 'other' ? block.kind : block.type}`);
    });
  }

  private user(entry: ClaudeEntry, line: number): void {
    const timestamp = normalizeTimestamp(entry.timestamp);
    const historyOnly = this.historyOnly(line);
    const at = {
      ...(timestamp !== undefined && { timestamp }),
      ...(historyOnly && { historyOnly }),
    };
    if (entry.isCompactSummary === true) {
      const boundary = this.pendingBoundary;
      this.pendingBoundary = undefined;
      const summary = contentText(entry.message?.content);
      this.writer.compaction({
        strategy: 'claude-code-compact',
        summary,
        extra: {
          source_format: 'claude-code',
          ...(boundary?.trigger !== undefined && { trigger: boundary.trigger }),
          ...(boundary?.preTokens !== undefined && { pre_tokens: boundary.preTokens }),
        },
      });
      this.writer.append({ role: 'user', content: summary, kind: 'summary', ...at });
      return;
    }
    this.closeBoundary();
    const content = entry.message?.content;
    if (typeof content === 'string') {
      this.writer.append({ role: 'user', content, ...at });
      return;
    }
    const rest: string[] = [];
    let restBlocks = 0;
    for (const block of blocksOf(content)) {
      if (block.type === 'tool_result') {
        const text = contentText(block.content);
        const name = this.writer.finishToolCall({
          id: block.tool_use_id,
          content: text,
          isError: block.is_error,
          ...(timestamp !== undefined && { timestamp }),
        });
        this.writer.append({
          role: 'tool',
          content: text,
          tool_call_id: block.tool_use_id,
          ...(name !== undefined && { tool_name: name }),
          ...at,
        });
      } else {
        restBlocks++;
        const text =
          block.type === 'text'
            ? block.text
            : block.type === 'other'
              ? contentText([block.raw])
              : block.type === 'thinking'
                ? block.thinking
                : '';
        if (text !== '') rest.push(text);
      }
    }
    if (restBlocks > 0) this.writer.append({ role: 'user', content: rest.join('\n\n'), ...at });
  }

  /** A compaction boundary with no summary entry after it still counts as a compaction. */
  private closeBoundary(): void {
    const boundary = this.pendingBoundary;
    if (!boundary) return;
    this.pendingBoundary = undefined;
    this.writer.compaction({
      strategy: 'claude-code-compact',
      summary: '',
      extra: {
        source_format: 'claude-code',
        note: 'compact boundary without a summary entry',
        ...(boundary.trigger !== undefined && { trigger: boundary.trigger }),
        ...(boundary.preTokens !== undefined && { pre_tokens: boundary.preTokens }),
      },
    });
  }

  private flush(): void {
    const group = this.group;
    if (!group) return;
    this.group = undefined;
    const historyOnly = this.historyOnly(group.line);
    for (const r of group.reasoning) {
      this.writer.append({
        role: 'assistant',
        content: r.text,
        name: REASONING_NAME,
        historyOnly: true,
        ...(r.timestamp !== undefined && { timestamp: r.timestamp }),
      });
    }
    const counted = !this.countedResponses.has(group.key) && group.model !== '<synthetic>';
    const usage = group.usage && counted ? toUsage(group.usage) : undefined;
    if (counted) {
      this.countedResponses.add(group.key);
      this.writer.countLlmCall();
      if (usage) this.writer.addUsage(usage);
    }
    if (group.texts.length === 0 && group.toolCalls.length === 0) return;
    this.writer.append({
      role: 'assistant',
      content: group.texts.length > 0 ? group.texts.join('\n\n') : null,
      ...(group.toolCalls.length > 0 && { tool_calls: group.toolCalls }),
      ...(usage !== undefined && { usage }),
      ...(group.timestamp !== undefined && { timestamp: group.timestamp }),
      ...(historyOnly && { historyOnly }),
    });
  }
}

/** Anthropic usage: input_tokens excludes cache reads and writes, so the total adds all four. */
function toUsage(u: ClaudeUsage): TokenUsage {
  return usageWithTotal({
    input_tokens: asNumber(u.input_tokens),
    output_tokens: asNumber(u.output_tokens),
    cache_creation_tokens: asNumber(u.cache_creation_input_tokens),
    cache_read_tokens: asNumber(u.cache_read_input_tokens),
  });
}
