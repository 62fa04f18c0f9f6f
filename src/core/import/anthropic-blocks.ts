/**
 * Messages written as Anthropic content blocks (`text`, `thinking`, `tool_use`,
 * `tool_result`), as Factory Droid and Cursor keep them: an assistant message's thinking
 * becomes one history-only reasoning message and its tool_use blocks tool calls; a user
 * message's tool_result blocks become tool messages, its text a user message.
 */
import type { ToolCall } from '../../shared/task-types';
import type { LineEvent } from './jsonl-session';
import { realRequest } from './session-meta';
import { REASONING_NAME } from './types';
import { argumentsString, asString, contentText, isRecord } from './text';

export interface BlockOptions {
  key: string;
  at: { timestamp?: string };
  /** An id for a tool_use block without one (its place in the file). */
  callId(index: number, name: string): string;
  /** The call a tool_result without a `tool_use_id` answers. */
  resultId(name: string | undefined): string;
  /** The person's request inside what the agent wrapped around it. */
  request?(text: string): string | undefined;
  /** This reply is one LLM call (false: the agent writes one reply over several lines). */
  llmCall?: boolean;
}

function blocks(content: unknown): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

export function assistantBlocks(content: unknown, o: BlockOptions): LineEvent[] {
  const list = blocks(content);
  const events: LineEvent[] = [];
  const thinking = list
    .filter((b) => b.type === 'thinking' || b.type === 'reasoning')
    .map((b) => asString(b.thinking) ?? asString(b.text) ?? '')
    .filter((t) => t.trim() !== '');
  if (thinking.length > 0)
    events.push({
      kind: 'message',
      key: `${o.key}/thinking`,
      message: {
        role: 'assistant',
        content: thinking.join('\n\n'),
        name: REASONING_NAME,
        historyOnly: true,
        ...o.at,
      },
    });
  const toolCalls: ToolCall[] = [];
  for (const b of list) {
    if (b.type !== 'tool_use' || typeof b.name !== 'string') continue;
    toolCalls.push({
      id: asString(b.id) ?? o.callId(toolCalls.length, b.name),
      type: 'function',
      function: { name: b.name, arguments: argumentsString(b.input ?? {}) },
    });
  }
  const text = list
    .filter((b) => b.type === 'text')
    .map((b) => asString(b.text) ?? '')
    .join('\n');
  events.push({
    kind: 'message',
    key: o.key,
    message: {
      role: 'assistant',
      content: text,
      ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
      ...o.at,
    },
    ...(o.llmCall !== false && { llmCall: true }),
  });
  return events;
}

export function userBlocks(content: unknown, o: BlockOptions): LineEvent[] {
  const list = blocks(content);
  const events: LineEvent[] = [];
  const results = list.filter((b) => b.type === 'tool_result');
  results.forEach((b, i) => {
    const name = asString(b.name) ?? asString(b.tool_name);
    events.push({
      kind: 'message',
      key: results.length > 1 ? `${o.key}/result:${i}` : `${o.key}/result`,
      message: {
        role: 'tool',
        content: contentText(b.content),
        tool_call_id: asString(b.tool_use_id) ?? o.resultId(name),
        ...(name !== undefined && { tool_name: name }),
        isError: b.is_error === true,
        ...o.at,
      },
    });
  });
  const text = list
    .filter((b) => b.type === 'text')
    .map((b) => asString(b.text) ?? '')
    .join('\n');
  if (text.trim() !== '' || results.length === 0) {
    const request = (o.request ?? realRequest)(text);
    if (request !== undefined) events.push({ kind: 'meta', meta: { firstRequest: request } });
    events.push({ kind: 'message', key: o.key, message: { role: 'user', content: text, ...o.at } });
  }
  return events;
}
