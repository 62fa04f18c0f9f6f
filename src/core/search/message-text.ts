import type { MessageRecord } from '../../shared/task-types';

/**
 * Characters of one message the search index holds: its start and its end. A tool output
 * of megabytes (a whole file, a build log) would otherwise cost the index its size again
 * and every search the time to skip it; what people look for in a long output is near
 * its start (the command, the file head) or its end (the error, the summary line).
 */
export const INDEXED_HEAD_CHARS = 24 * 1024;
export const INDEXED_TAIL_CHARS = 8 * 1024;

/** What the search index holds of a message: its text, its role and the tools it names. */
export interface IndexedText {
  body: string;
  role: string;
  tool: string;
}

/**
 * The searchable text of a message: its content (a tool's output for a tool message) and,
 * for an assistant message, each tool call's name and arguments. Reasoning is searched as
 * the role `reasoning` so it can be filtered apart from the answers.
 */
export function indexedText(
  m: Pick<MessageRecord, 'role' | 'content' | 'tool_calls' | 'tool_name' | 'name'>,
): IndexedText {
  const parts: string[] = [];
  if (typeof m.content === 'string' && m.content !== '') parts.push(m.content);
  const tools: string[] = [];
  if (m.role === 'tool' && m.tool_name) tools.push(m.tool_name);
  for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
    const name = call?.function?.name;
    if (typeof name === 'string' && name !== '') tools.push(name);
    const args = call?.function?.arguments;
    parts.push(`${typeof name === 'string' ? name : ''} ${typeof args === 'string' ? args : ''}`);
  }
  return {
    body: capText(parts.join('\n')),
    role: m.role === 'assistant' && m.name === 'reasoning' ? 'reasoning' : m.role,
    tool: [...new Set(tools)].join(' '),
  };
}

/** The start and end of a long text, as indexed (and as an exact match is checked against). */
export function capText(text: string): string {
  if (text.length <= INDEXED_HEAD_CHARS + INDEXED_TAIL_CHARS) return text;
  return `${text.slice(0, INDEXED_HEAD_CHARS)}\n…\n${text.slice(text.length - INDEXED_TAIL_CHARS)}`;
}
