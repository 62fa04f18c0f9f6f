import type { CurrentMessage, ToolCall } from '../../shared/task-types';
import type { SpanMessage } from '../facts/span-facts';
import {
  readCompactedSpan,
  type CompactedSpan,
  type SpanLimits,
  type SpanLine,
} from './compacted-span';

/**
 * The span Claude Code's last compaction replaced, streamed from its transcript
 * (`~/.claude/projects/<project>/<session>.jsonl`) the way it stands when the
 * `SessionStart` hook with source `compact` fires: a `compact_boundary` system entry,
 * then (once written) the `isCompactSummary` user entry holding the summary. The span is
 * every main-thread message between the boundary before it (or the file's start) and the
 * last boundary; subagents' entries (`isSidechain`) are other contexts and left out.
 */
export function readClaudeCodeSpan(file: string, limits: SpanLimits): CompactedSpan {
  return readCompactedSpan(file, limits, claudeCodeLine);
}

function claudeCodeLine(text: string): SpanLine {
  const parsed = parseLine(text);
  if (!parsed || parsed.isSidechain === true) return undefined;
  if (parsed.type === 'system' && parsed.subtype === 'compact_boundary') {
    return { kind: 'compaction', summary: '' };
  }
  if (parsed.type !== 'user' && parsed.type !== 'assistant') return undefined;
  if (parsed.isCompactSummary === true) {
    return { kind: 'summary', text: contentText(parsed.message?.content) };
  }
  return { kind: 'messages', messages: toMessages(parsed) };
}

interface ClaudeLine {
  type?: string;
  subtype?: string;
  isSidechain?: boolean;
  isCompactSummary?: boolean;
  isMeta?: boolean;
  message?: { role?: string; content?: unknown };
}

function parseLine(line: string): ClaudeLine | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? (value as ClaudeLine) : undefined;
  } catch {
    return undefined;
  }
}

interface Block {
  type?: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
}

/** One transcript entry as our messages: text and calls, or one tool message per result. */
function toMessages(line: ClaudeLine): SpanMessage[] {
  const content = line.message?.content;
  if (line.type === 'assistant') {
    const texts: string[] = [];
    const calls: ToolCall[] = [];
    for (const block of blocks(content)) {
      if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
      else if (block.type === 'tool_use' && typeof block.name === 'string') {
        calls.push({
          id: block.id ?? `call${calls.length}`,
          type: 'function',
          function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
        });
      }
    }
    if (texts.length === 0 && calls.length === 0) return [];
    const message: CurrentMessage = { role: 'assistant', content: texts.join('\n') };
    if (calls.length > 0) message.tool_calls = calls;
    return [{ message }];
  }
  if (typeof content === 'string') return [{ message: { role: 'user', content } }];
  const out: SpanMessage[] = [];
  const texts: string[] = [];
  for (const block of blocks(content)) {
    if (block.type === 'tool_result') {
      const message: CurrentMessage = { role: 'tool', content: contentText(block.content) };
      if (block.tool_use_id) message.tool_call_id = block.tool_use_id;
      out.push({ message });
    } else if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
  }
  if (texts.length > 0) out.push({ message: { role: 'user', content: texts.join('\n') } });
  return out;
}

function blocks(content: unknown): Block[] {
  return Array.isArray(content)
    ? content.filter((b): b is Block => typeof b === 'object' && b !== null)
    : [];
}

/** A string content, or the text blocks of a list. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return blocks(content)
    .map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : ''))
    .filter(Boolean)
    .join('\n');
}
