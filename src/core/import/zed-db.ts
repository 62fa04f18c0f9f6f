/**
 * Zed agent threads (zed-industries/zed `crates/agent/src/db.rs`): the SQLite store
 * `threads/threads.db` in Zed's data folder, table `threads` (id, parent_id, summary,
 * updated_at RFC 3339, created_at, folder_paths, data_type `zstd`|`json`, data). `data` is
 * the thread as JSON (zstd-compressed by current Zed; decompressed here with fzstd, Node 20
 * has no zstd), rewritten whole on every save:
 *
 * - version 0.3.0 (`DbThread`): `messages` as `{"User": {id, content: [{"Text"}|{"Mention"}…]}}`,
 *   `{"Agent": {content: [{"Text"}|{"Thinking": {text}}|{"ToolUse": {id, name, input}}…],
 *   tool_results: {<id>: {tool_use_id, tool_name, is_error, content}}}}` or `"Resume"`;
 *   `request_token_usage` maps a user message id to the usage of the requests it started.
 * - older threads (`SerializedThread`): `messages` [{id, role, segments [{type: text|thinking}],
 *   tool_uses, tool_results}], `request_token_usage` by message index.
 *
 * An Agent message is one assistant message (one LLM call; its thinking first as a
 * history-only message), followed by one tool message per result. Keys: `zed:<index>` (a
 * thread only grows by appending), `zed:<index>/thinking`, `zed:<index>/tool:<call id>`.
 */
import { decompress } from 'fzstd';
import type { TokenUsage, ToolCall } from '../../shared/task-types';
import type { StoreSession } from '../sources/sync-store';
import { databaseFormat, type ForeignDb } from './database-format';
import type { SessionEvent, SessionMessage } from './session-format';
import { REASONING_NAME } from './types';
import { argumentsString, asNumber, asString, isRecord, normalizeTimestamp } from './text';

function sessions(db: ForeignDb): StoreSession[] {
  // Oldest first: an import makes a parent's task before its sub-agents' (session-import.ts).
  // parent_id and created_at came with later Zeds (a database none has opened since lacks them).
  const columns = new Set(
    (db.prepare("SELECT name FROM pragma_table_info('threads')").all() as { name: string }[]).map(
      (c) => c.name,
    ),
  );
  const parent = columns.has('parent_id')
    ? 'coalesce(parent_id IN (SELECT id FROM threads), 0)'
    : '0';
  const rows = db
    .prepare(
      `SELECT id, updated_at AS u, length(data) AS n, ${parent} AS p FROM threads
        ORDER BY ${columns.has('created_at') ? 'created_at, ' : ''}id`,
    )
    .all() as { id: string; u: string; n: number; p: number }[];
  // The thread is rewritten whole: its size and time change with every save. A sub-agent's
  // thread counts its parent once that is here (synced again then, to hang under it).
  return rows.map((r) => ({ id: r.id, version: Date.parse(r.u) || 0, rows: 1 + r.n + r.p }));
}

/** The thread's JSON from the `data` column. */
export function threadJson(dataType: unknown, data: unknown): unknown {
  const bytes =
    data instanceof Uint8Array
      ? data
      : typeof data === 'string'
        ? Buffer.from(data, 'utf8')
        : undefined;
  if (!bytes) throw new Error('no data');
  const json = dataType === 'zstd' ? decompress(bytes) : bytes;
  return JSON.parse(
    Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('utf8'),
  ) as unknown;
}

function usageOf(u: unknown): Partial<TokenUsage> | undefined {
  if (!isRecord(u)) return undefined;
  const usage = {
    input_tokens: asNumber(u.input_tokens),
    output_tokens: asNumber(u.output_tokens),
    cache_creation_tokens: asNumber(u.cache_creation_input_tokens),
    cache_read_tokens: asNumber(u.cache_read_input_tokens),
  };
  const total =
    usage.input_tokens +
    usage.output_tokens +
    usage.cache_creation_tokens +
    usage.cache_read_tokens;
  return total > 0 ? { ...usage, total_tokens: total } : undefined;
}

/** Text of a tool result's content: a string, `{"Text": s}`, or a list of those. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(resultText).join('\n');
  if (isRecord(content)) {
    if (typeof content.Text === 'string') return content.Text;
    if (typeof content.text === 'string') return content.text;
    if ('Image' in content) return '[image]';
  }
  return content === undefined || content === null ? '' : JSON.stringify(content);
}

/** One message in a common shape, from either thread version. */
interface ZedMessage {
  role: 'user' | 'assistant';
  userId?: string;
  texts: string[];
  thinking: string[];
  /** Thinking the provider returned encrypted (RedactedThinking): nothing to read. */
  redacted?: number;
  calls: ToolCall[];
  results: { id: string; name?: string; error: boolean; text: string }[];
}

function normalize(m: unknown): ZedMessage | string {
  if (m === 'Resume') return 'resume';
  if (!isRecord(m)) return 'not an object';
  if (isRecord(m.User)) {
    const content = Array.isArray(m.User.content) ? m.User.content : [];
    const texts = content.map((c) =>
      typeof c === 'string'
        ? c
        : isRecord(c)
          ? typeof c.Text === 'string'
            ? c.Text
            : isRecord(c.Mention)
              ? `[${asString(c.Mention.content) ?? 'mention'}]`
              : `[${Object.keys(c)[0] ?? 'content'}]`
          : '',
    );
    return {
      role: 'user',
      ...(typeof m.User.id === 'string' && { userId: m.User.id }),
      texts,
      thinking: [],
      calls: [],
      results: [],
    };
  }
  if (isRecord(m.Agent)) {
    const out: ZedMessage = {
      role: 'assistant',
      texts: [],
      thinking: [],
      redacted: 0,
      calls: [],
      results: [],
    };
    for (const c of Array.isArray(m.Agent.content) ? m.Agent.content : []) {
      if (!isRecord(c)) continue;
      if (typeof c.Text === 'string') out.texts.push(c.Text);
      else if (isRecord(c.Thinking)) out.thinking.push(asString(c.Thinking.text) ?? '');
      else if ('RedactedThinking' in c) out.redacted = (out.redacted ?? 0) + 1;
      else if (isRecord(c.ToolUse))
        out.calls.push({
          id: asString(c.ToolUse.id) ?? `call-${out.calls.length + 1}`,
          type: 'function',
          function: {
            name: asString(c.ToolUse.name) ?? 'tool',
            arguments:
              c.ToolUse.input !== undefined
                ? argumentsString(c.ToolUse.input)
                : (asString(c.ToolUse.raw_input) ?? '{}'),
          },
        });
    }
    const results = isRecord(m.Agent.tool_results) ? Object.values(m.Agent.tool_results) : [];
    for (const r of results)
      if (isRecord(r))
        out.results.push({
          id: asString(r.tool_use_id) ?? '',
          ...(asString(r.tool_name) && { name: r.tool_name as string }),
          error: r.is_error === true,
          text: resultText(r.content),
        });
    return out;
  }
  // Older threads: {role, segments, tool_uses, tool_results}
  if (m.role === 'user' || m.role === 'assistant') {
    const segments = Array.isArray(m.segments) ? m.segments.filter(isRecord) : [];
    const out: ZedMessage = {
      role: m.role,
      texts: segments.filter((s) => s.type === 'text').map((s) => asString(s.text) ?? ''),
      thinking: segments.filter((s) => s.type === 'thinking').map((s) => asString(s.text) ?? ''),
      calls: (Array.isArray(m.tool_uses) ? m.tool_uses.filter(isRecord) : []).map((t, j) => ({
        id: asString(t.id) ?? `call-${j + 1}`,
        type: 'function' as const,
        function: { name: asString(t.name) ?? 'tool', arguments: argumentsString(t.input ?? {}) },
      })),
      results: (Array.isArray(m.tool_results) ? m.tool_results.filter(isRecord) : []).map((r) => ({
        id: asString(r.tool_use_id) ?? '',
        error: r.is_error === true,
        text: resultText(r.content),
      })),
    };
    if (out.role === 'user' && out.texts.length === 0 && typeof m.context === 'string')
      out.texts.push(m.context);
    return out;
  }
  return `role ${JSON.stringify(m.role)}`;
}

function* events(db: ForeignDb, id: string): Generator<SessionEvent> {
  const row = db.prepare('SELECT * FROM threads WHERE id = ?').get(id) as
    Record<string, unknown> | undefined;
  if (!row) return;
  let thread: unknown;
  try {
    thread = threadJson(row.data_type, row.data);
  } catch (err) {
    yield { kind: 'session', key: id, meta: { agent: 'zed', sessionId: id } };
    yield {
      kind: 'skip',
      key: `zed:${id}`,
      where: `thread ${id}`,
      reason: `data unreadable: ${(err as Error).message}`,
    };
    return;
  }
  const t = isRecord(thread) ? thread : {};
  const messages = Array.isArray(t.messages) ? t.messages : [];
  const model = isRecord(t.model) ? asString(t.model.model) : undefined;
  const title = asString(t.title) ?? asString(t.summary) ?? asString(row.summary);
  const folder = asString(row.folder_paths)?.split('\n')[0];
  // A sub-agent's thread (Zed's spawn_agent): its parent in the row and in the thread.
  const subagent = isRecord(t.subagent_context) ? t.subagent_context : undefined;
  const parent = asString(row.parent_id) ?? asString(subagent?.parent_thread_id);
  const created = normalizeTimestamp(row.created_at);
  const updated = normalizeTimestamp(t.updated_at ?? row.updated_at);
  yield {
    kind: 'session',
    key: id,
    meta: {
      agent: 'zed',
      sessionId: id,
      ...(title && { title }),
      ...(folder && { cwd: folder }),
      ...(model !== undefined && { model }),
      ...(created !== undefined && { startedAt: created }),
      ...(updated !== undefined && { updatedAt: updated }),
      ...(parent !== undefined && { parentSessionId: parent }),
      extra: {
        parent_thread_id: parent ?? null,
        provider: isRecord(t.model) ? (asString(t.model.provider) ?? null) : null,
      },
    },
  };
  const byUser = isRecord(t.request_token_usage) ? t.request_token_usage : {};
  const byIndex = Array.isArray(t.request_token_usage) ? t.request_token_usage : [];
  let lastUser: string | undefined;
  const used = new Set<string>();
  for (const [i, raw] of messages.entries()) {
    const key = `zed:${i}`;
    const m = normalize(raw);
    if (typeof m === 'string') {
      if (m === 'resume') yield { kind: 'ignore', key, what: 'zed resume marker' };
      else yield { kind: 'skip', key, where: `message ${i + 1}`, reason: m };
      continue;
    }
    if (m.role === 'user') {
      lastUser = m.userId;
      if (m.texts.length === 0)
        yield {
          kind: 'skip',
          key,
          where: `message ${i + 1}`,
          reason: 'a user message without text',
        };
      else yield { kind: 'message', key, message: { role: 'user', content: m.texts.join('\n') } };
      continue;
    }
    // The usage of the requests a user message started goes with the first reply after it.
    let usage = usageOf(byIndex[i]);
    if (lastUser !== undefined && !used.has(lastUser)) {
      used.add(lastUser);
      usage = usageOf(byUser[lastUser]) ?? usage;
    }
    yield* agentEvents(m, key, i, usage, model);
  }
}

function* agentEvents(
  m: ZedMessage,
  key: string,
  i: number,
  usage: Partial<TokenUsage> | undefined,
  model: string | undefined,
): Generator<SessionEvent> {
  if (m.redacted) yield { kind: 'ignore', key: `${key}/redacted`, what: 'zed redacted thinking' };
  if (m.thinking.some((x) => x.trim() !== ''))
    yield {
      kind: 'message',
      key: `${key}/thinking`,
      message: {
        role: 'assistant',
        content: m.thinking.join('\n\n'),
        name: REASONING_NAME,
        historyOnly: true,
      },
    };
  if (m.texts.length === 0 && m.calls.length === 0) {
    yield {
      kind: 'skip',
      key,
      where: `message ${i + 1}`,
      reason: 'an agent message without text or tool calls',
    };
    return;
  }
  yield {
    kind: 'message',
    key,
    message: {
      role: 'assistant',
      content: m.texts.length > 0 ? m.texts.join('\n') : null,
      ...(m.calls.length > 0 && { tool_calls: m.calls }),
    },
    llmCall: true,
    ...(usage && { usage }),
    ...(model !== undefined && { model }),
  };
  for (const r of m.results) {
    const message: SessionMessage = {
      role: 'tool',
      content: r.text,
      tool_call_id: r.id,
      ...(r.name !== undefined && { tool_name: r.name }),
      isError: r.error,
    };
    yield { kind: 'message', key: `${key}/tool:${r.id}`, message };
  }
}

export const zedDatabaseFormat = databaseFormat({
  agent: 'zed',
  claims: (tables) => tables.has('threads') && !tables.has('sessions'),
  sessions,
  events: (db, id) => events(db, id),
});
