import type { CurrentMessage } from '../../shared/task-types';
import {
  readCompactedSpan,
  type CompactedSpan,
  type SpanLimits,
  type SpanLine,
} from './compacted-span';

/**
 * The span Codex's last compaction replaced, streamed from its rollout file
 * (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, `{timestamp, type, payload}` lines):
 * the response items between the `compacted` line before it (or the start) and the last
 * `compacted` line, whose `message` (and the user messages of its `replacement_history`)
 * is what the new context holds.
 */
export function readCodexSpan(file: string, limits: SpanLimits): CompactedSpan {
  return readCompactedSpan(file, limits, codexLine);
}

function codexLine(text: string): SpanLine {
  const line = parseLine(text);
  if (line?.type === 'compacted')
    return { kind: 'compaction', summary: compactedText(line.payload) };
  if (line?.type !== 'response_item') return undefined;
  const message = toMessage(line.payload);
  return message ? { kind: 'messages', messages: [{ message }] } : undefined;
}

type Json = Record<string, unknown>;

function parseLine(text: string): { type: string; payload: Json } | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (!isRecord(value) || typeof value.type !== 'string' || !isRecord(value.payload))
      return undefined;
    return { type: value.type, payload: value.payload };
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The summary and what Codex kept in its place (user messages of the replacement history). */
function compactedText(payload: Json): string {
  const parts = [str(payload.message)];
  const kept = Array.isArray(payload.replacement_history) ? payload.replacement_history : [];
  for (const item of kept) if (isRecord(item)) parts.push(textOf(item.content));
  return parts.filter(Boolean).join('\n');
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (isRecord(part) ? str(part.text) : ''))
    .filter(Boolean)
    .join('\n');
}

function toMessage(p: Json): CurrentMessage | undefined {
  const id = str(p.call_id) || str(p.id);
  switch (p.type) {
    case 'message': {
      const role = p.role === 'assistant' ? 'assistant' : p.role === 'user' ? 'user' : undefined;
      return role ? { role, content: textOf(p.content) } : undefined;
    }
    case 'function_call':
    case 'custom_tool_call': {
      const args = typeof p.arguments === 'string' ? p.arguments : JSON.stringify(p.input ?? {});
      return {
        role: 'assistant',
        content: '',
        tool_calls: [{ id, type: 'function', function: { name: str(p.name), arguments: args } }],
      };
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const output = isRecord(p.output) ? str(p.output.content) : str(p.output);
      return { role: 'tool', content: output, tool_call_id: id };
    }
    default:
      return undefined;
  }
}
