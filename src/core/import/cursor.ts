/**
 * Cursor agent transcripts (`~/.cursor/projects/<project>/agent-transcripts/<id>/<id>.jsonl`,
 * written by the editor's agent and by `cursor-agent`): one message per line,
 * `{role, message: {content}}`, with Anthropic-style blocks and no ids or times of their own.
 *
 * - `user` → the tool messages of its `tool_result` blocks and the user message of its text
 *   (the request is what `<user_query>` holds; `<user_info>`, `<attached_files>`, rules and
 *   other wrappers around it are context the agent added).
 * - `assistant` → its thinking as a history-only reasoning message, then the reply (one LLM
 *   call) whose `tool_use` blocks are tool calls. A block without an id gets its line's
 *   place; a result without an id answers the oldest call of its tool still open.
 * - Lines without a role (turn markers) → counted as ignored by type.
 *
 * Times are the file's (birth and last change): Cursor records none per message.
 */
import path from 'node:path';
import type { JsonlSessionAgent, LineEvent } from './jsonl-session';
import { jsonlSessionFormat } from './jsonl-session';
import { assistantBlocks, userBlocks } from './anthropic-blocks';
import { realRequest } from './session-meta';
import { asString, isRecord } from './text';

interface CursorState {
  /** Calls without an id of their own still waiting for a result, oldest first. */
  open: { id: string; name: string }[];
}

/** What the person typed: the `<user_query>` the agent wrapped, else the text itself. */
function cursorRequest(text: string): string | undefined {
  const query = /<user_query>\s*([\s\S]*?)\s*<\/user_query>/.exec(text)?.[1];
  return realRequest(query ?? text);
}

function cursorLine(value: unknown, lineNo: number, state: CursorState): LineEvent[] {
  const key = `L${lineNo}`;
  const where = `line ${lineNo}`;
  if (!isRecord(value)) return [{ kind: 'skip', key, where, reason: 'not an object' }];
  if (typeof value.role !== 'string')
    return [
      { kind: 'ignore', key, what: `cursor ${asString(value.type) ?? 'entry without a role'}` },
    ];
  const message = isRecord(value.message) ? value.message : value;
  const options = {
    key,
    at: {},
    callId: (i: number, name: string) => {
      const id = `${key}-call-${i + 1}`;
      state.open.push({ id, name });
      return id;
    },
    resultId: (name: string | undefined) => {
      const at = state.open.findIndex((c) => name === undefined || c.name === name);
      return at < 0 ? '' : state.open.splice(at, 1)[0]!.id;
    },
    request: cursorRequest,
  };
  if (value.role === 'assistant') return assistantBlocks(message.content, options);
  if (value.role === 'user') {
    const events = userBlocks(message.content, options);
    const text = JSON.stringify(message.content);
    const workspace =
      /Workspace Path: ([^\s"\\]+)/.exec(text)?.[1] ??
      /absolute path of the user's workspace is ([^\s"\\]+?)\.?(?:\s|\\n|")/.exec(text)?.[1];
    return workspace !== undefined
      ? [{ kind: 'meta', meta: { cwd: workspace } }, ...events]
      : events;
  }
  return [{ kind: 'skip', key, where, reason: `unknown role ${JSON.stringify(value.role)}` }];
}

export const cursorAgentFormat: JsonlSessionAgent = {
  agent: 'cursor',
  sniffLine: (v) =>
    (v.role === 'user' || v.role === 'assistant') &&
    isRecord(v.message) &&
    'content' in v.message &&
    !('type' in v) &&
    !('uuid' in v),
  converter: (saved) => {
    const state: CursorState =
      isRecord(saved) && Array.isArray(saved.open)
        ? { open: [...(saved.open as CursorState['open'])] }
        : { open: [] };
    return {
      line: (value, lineNo) => cursorLine(value, lineNo, state),
      save: () => ({ open: [...state.open] }),
    };
  },
  // agent-transcripts/<id>/<id>.jsonl
  metaOf: (file) => ({ sessionId: path.basename(file, '.jsonl') }),
};

export const cursorFormat = jsonlSessionFormat(cursorAgentFormat);
