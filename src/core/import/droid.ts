/**
 * Factory Droid sessions (`~/.factory/sessions/<project>/<session id>.jsonl`, older ones
 * directly in `sessions/`), appended line by line:
 *
 * - `session_start`: `id`, `title` / `sessionTitle` (the title), `cwd`, `owner`, `version`.
 * - `message`: `{id, timestamp, parentId?, message: {role, content}}` with Anthropic content
 *   blocks: an assistant message's `thinking` → a history-only reasoning message, the reply
 *   one LLM call whose `tool_use` blocks are tool calls; a user message's `tool_result`
 *   blocks → tool messages (`is_error` failed), its text a user message.
 * - Other line types (todo and compaction state, notices) → counted as ignored by type.
 *
 * `<session id>.settings.json` beside the file names the model (`model`).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { JsonlSessionAgent, LineEvent } from './jsonl-session';
import { jsonlSessionFormat } from './jsonl-session';
import { assistantBlocks, userBlocks } from './anthropic-blocks';
import { asString, isRecord } from './text';

function droidLine(value: unknown, lineNo: number): LineEvent[] {
  const key = `L${lineNo}`;
  const where = `line ${lineNo}`;
  if (!isRecord(value) || typeof value.type !== 'string')
    return [{ kind: 'skip', key, where, reason: 'not a session entry' }];
  if (value.type === 'session_start') {
    const title = asString(value.sessionTitle) ?? asString(value.title);
    return [
      {
        kind: 'meta',
        meta: {
          ...(typeof value.id === 'string' && { sessionId: value.id }),
          ...(typeof value.cwd === 'string' && { cwd: value.cwd }),
          ...(title !== undefined && title.trim() !== '' && { title }),
        },
      },
    ];
  }
  if (value.type !== 'message') return [{ kind: 'ignore', key, what: `droid ${value.type}` }];
  const m = isRecord(value.message) ? value.message : undefined;
  const timestamp = asString(value.timestamp);
  const options = {
    key,
    at: timestamp !== undefined ? { timestamp } : {},
    callId: (i: number) => `${key}-call-${i + 1}`,
    resultId: () => '',
  };
  if (m?.role === 'assistant') return assistantBlocks(m.content, options);
  if (m?.role === 'user') return userBlocks(m.content, options);
  return [{ kind: 'skip', key, where, reason: `unknown message role ${JSON.stringify(m?.role)}` }];
}

/** The model the session's settings name (a small JSON file beside it). */
function settingsModel(file: string): string | undefined {
  try {
    const settings: unknown = JSON.parse(
      fs.readFileSync(file.replace(/\.jsonl$/, '.settings.json'), 'utf8'),
    );
    return isRecord(settings) ? asString(settings.model) : undefined;
  } catch {
    return undefined;
  }
}

export const droidAgentFormat: JsonlSessionAgent = {
  agent: 'droid',
  sniffLine: (v) =>
    v.type === 'session_start' && typeof v.id === 'string' && ('cwd' in v || 'owner' in v),
  converter: () => ({ line: droidLine, save: () => null }),
  metaOf: (file) => {
    const model = settingsModel(file);
    return { sessionId: path.basename(file, '.jsonl'), ...(model !== undefined && { model }) };
  },
};

export const droidFormat = jsonlSessionFormat(droidAgentFormat);
