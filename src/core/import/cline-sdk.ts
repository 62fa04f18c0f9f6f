/**
 * Cline since its SDK migration (cline/cline `sdk/packages/core`, read at commit
 * 21cb8d2525bcedf1f4b6890b27a74a14fe7451e4): every session keeps its conversation in
 * `<data>/sessions/<root id>/<id>.messages.json` (data: CLINE_DATA_DIR, else
 * `$CLINE_DIR/data`, else `~/.cline/data`), a whole JSON document rewritten on each change:
 * `{version: 1, updated_at, agent, sessionId, origin? {parentThreadId?}, messages,
 * system_prompt?}` (the system prompt: a pinned system message), each message
 * `{id, role, content: string | blocks, ts, modelInfo? {id, provider, family},
 * metrics? {inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, cost}}`.
 * (`sdk/packages/core/docs/messages-contract-v1.md`: only a turn's last assistant message
 * carries `metrics`; `inputTokens` counts the cache reads, as the costs in Cline's own fixture
 * show.) A sub-agent (`spawn_agent`) is a child session `<root>__<agent id>` whose file,
 * `<root>/<agent id>.messages.json`, sits in its root's folder.
 *
 * The session's row in `<data>/db/sessions.db` (`sessions`: title in `metadata_json`, cwd,
 * model, started_at/ended_at, parent_session_id, prompt) or, without it, the manifest
 * `<root>/<id>.json` beside the messages adds what the messages lack. The database is
 * opened read-only (foreign-database.ts). One that cannot be read now (locked, half-written)
 * is passed over by `cwb import` (the manifest stands in); a live sync (`retryBusy`) leaves
 * the session for a later sync instead, unless the database has not changed for a minute
 * (then it is broken, not busy, and would hold every session back).
 *
 * The messages are Anthropic-style blocks like the extension's old history
 * (`tool_use` with an object `input`, `tool_result` by `tool_use_id`, `thinking`), plus
 * `file` blocks (a file attached to the request, as text) and `media`: they are mapped to
 * that history's shape and read by the same converter (cline.ts), so both stores give the
 * same messages, calls and results. Keys: `m<index>` as there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openForeignDatabase } from '../db/foreign-database';
import { StoreUnavailable } from '../sources/sync-store';
import { conversationEvents, firstRequest } from './cline';
import type { SessionEvent, SessionMeta } from './session-format';
import { asNumber, asString, contentText, isRecord, normalizeTimestamp } from './text';

export interface ClineSdkDocument {
  version: number;
  sessionId: string;
  messages: unknown[];
  updated_at?: unknown;
  agent?: unknown;
  origin?: unknown;
  system_prompt?: unknown;
}

/** `{version: 1, sessionId, messages: [...]}`: a Cline SDK session's messages file. */
export function isClineSdkDocument(doc: unknown): doc is ClineSdkDocument {
  return (
    isRecord(doc) &&
    doc.version === 1 &&
    typeof doc.sessionId === 'string' &&
    Array.isArray(doc.messages)
  );
}

/** `<root>/<stem>.messages.json`: the root session's folder and the file's stem. */
function locate(file: string): { dir: string; root: string; stem: string } {
  const abs = path.resolve(file);
  const dir = path.dirname(abs);
  return { dir, root: path.basename(dir), stem: path.basename(abs, '.messages.json') };
}

/** How recently a database unreadable now must have changed to count as busy, not broken. */
const BUSY_WINDOW_MS = 60_000;

/**
 * The session's row in sessions.db (read-only), or undefined when absent or not readable
 * now; `retryBusy`: a database being written now throws StoreUnavailable instead.
 */
function sessionRow(
  file: string,
  id: string,
  retryBusy: boolean,
): Record<string, unknown> | undefined {
  const { dir } = locate(file);
  const db = path.join(path.dirname(path.dirname(dir)), 'db', 'sessions.db');
  if (!fs.existsSync(db)) return undefined;
  try {
    const conn = openForeignDatabase(db);
    try {
      const row: unknown = conn.prepare('SELECT * FROM sessions WHERE session_id = ?').get(id);
      return isRecord(row) ? row : undefined;
    } finally {
      conn.close();
    }
  } catch (err) {
    if (retryBusy && err instanceof StoreUnavailable && changedLately(db)) throw err;
    // Locked, being written or not Cline's: the manifest or the messages alone stand in.
    return undefined;
  }
}

/** The database or its WAL or journal changed within BUSY_WINDOW_MS. */
function changedLately(db: string): boolean {
  const newest = Math.max(
    ...['', '-wal', '-journal'].map((suffix) => {
      try {
        return fs.statSync(db + suffix).mtimeMs;
      } catch {
        return 0;
      }
    }),
  );
  return Date.now() - newest < BUSY_WINDOW_MS;
}

/** The manifest `<root>/<id>.json` (snake_case like the row, `metadata` already an object). */
function manifest(file: string, id: string): Record<string, unknown> | undefined {
  const { dir } = locate(file);
  try {
    const p = path.join(dir, `${id}.json`);
    if (fs.statSync(p).size > 16 * 1024 * 1024) return undefined;
    const value: unknown = JSON.parse(fs.readFileSync(p, 'utf8'));
    return isRecord(value) && value.session_id === id ? value : undefined;
  } catch {
    return undefined;
  }
}

function metadataOf(row: Record<string, unknown>): Record<string, unknown> {
  if (isRecord(row.metadata)) return row.metadata;
  try {
    const value: unknown = JSON.parse(asString(row.metadata_json) ?? '');
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}

function sessionMeta(
  file: string,
  doc: ClineSdkDocument,
  messages: unknown[],
  retryBusy: boolean,
): SessionMeta {
  const id = doc.sessionId;
  const { root, stem } = locate(file);
  // A child has a row but no manifest: without the row, its root's manifest gives the cwd.
  const row = sessionRow(file, id, retryBusy) ?? manifest(file, id) ?? {};
  const rootManifest = row.cwd === undefined && stem !== root ? manifest(file, root) : undefined;
  const metadata = metadataOf(row);
  const origin = isRecord(doc.origin) ? doc.origin : {};
  // A child's file sits in its root's folder under its agent id.
  const parent =
    asString(row.parent_session_id) ??
    asString(origin.parentThreadId) ??
    (stem !== root ? root : undefined);
  const stamps = messages
    .map((m) => (isRecord(m) ? normalizeTimestamp(m.ts) : undefined))
    .filter((t): t is string => t !== undefined);
  const firstUser = messages.find((m) => isRecord(m) && m.role === 'user');
  const request = isRecord(firstUser) ? firstRequest(firstUser.content) : undefined;
  const firstModel = messages
    .map((m) => (isRecord(m) && isRecord(m.modelInfo) ? asString(m.modelInfo.modelId) : undefined))
    .find(Boolean);
  const model = asString(row.model) || firstModel;
  const title = asString(metadata.title);
  const cwd = asString(row.cwd) ?? asString(rootManifest?.cwd);
  const started = normalizeTimestamp(row.started_at) ?? stamps[0];
  const ended = normalizeTimestamp(row.ended_at) ?? stamps[stamps.length - 1];
  const updated = normalizeTimestamp(doc.updated_at);
  const prompt = asString(row.prompt);
  return {
    agent: 'cline',
    sessionId: id,
    ...(title && { title }),
    ...(request !== undefined && { firstRequest: request }),
    ...(cwd && { cwd }),
    ...(model && { model }),
    ...(started !== undefined && { startedAt: started }),
    ...(updated !== undefined && { updatedAt: updated }),
    ...(ended !== undefined && { endedAt: ended }),
    ...(parent !== undefined && { parentSessionId: parent }),
    ...(parent !== undefined && prompt && { description: prompt }),
    extra: {
      store: 'cline-sdk',
      ...(typeof doc.agent === 'string' && { sdk_agent: doc.agent }),
      ...(typeof row.status === 'string' && { status: row.status }),
    },
  };
}

/** One SDK block in the old history's shape (cline.ts reads those). */
function legacyBlock(b: unknown): Record<string, unknown> {
  if (!isRecord(b)) return { type: 'text', text: contentText(b) };
  switch (b.type) {
    case 'text':
    case 'tool_use':
    case 'tool_result':
    case 'thinking':
    case 'redacted_thinking':
    case 'image':
      return b;
    case 'file':
      return {
        type: 'text',
        text: `<file path="${asString(b.path) ?? ''}">\n${asString(b.content) ?? ''}\n</file>`,
      };
    case 'media':
      return { type: 'image' };
    default:
      return { type: 'text', text: contentText(b) };
  }
}

/** One SDK message in the old history's shape: metrics as `tokens` (prompt counts cache reads). */
function legacyMessage(m: unknown): unknown {
  if (!isRecord(m)) return m;
  const info = isRecord(m.modelInfo) ? m.modelInfo : undefined;
  const metrics = isRecord(m.metrics) ? m.metrics : undefined;
  return {
    role: m.role,
    content: Array.isArray(m.content) ? m.content.map(legacyBlock) : m.content,
    ...(m.ts !== undefined && { ts: m.ts }),
    ...(info && { modelInfo: { modelId: info.id, providerId: info.provider } }),
    ...(metrics && {
      metrics: {
        tokens: {
          prompt: asNumber(metrics.inputTokens),
          completion: asNumber(metrics.outputTokens),
          cached: asNumber(metrics.cacheReadTokens),
          cacheWrites: asNumber(metrics.cacheWriteTokens),
        },
        cost: metrics.cost,
      },
    }),
  };
}

/** `retryBusy`: a live sync (SessionParseOptions.retryBusy). */
export function* clineSdkEvents(
  file: string,
  doc: ClineSdkDocument,
  retryBusy = false,
): Generator<SessionEvent> {
  const messages = doc.messages.map(legacyMessage);
  const meta = sessionMeta(file, doc, messages, retryBusy);
  yield { kind: 'session', key: doc.sessionId, meta };
  const system = asString(doc.system_prompt);
  // The system prompt stays in the context whatever the agent compacts.
  if (system)
    yield {
      kind: 'message',
      key: 'system',
      message: { role: 'system', content: system },
      pinned: true,
    };
  yield* conversationEvents(messages, { requests: [], runs: [] });
}
