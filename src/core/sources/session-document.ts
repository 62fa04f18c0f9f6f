import crypto from 'node:crypto';
import type { SessionEvent, SessionMeta } from '../import/session-format';
import { realRequest, titleLine } from '../import/session-meta';
import { normalizeTimestamp } from '../import/text';
import { withTotal } from '../import/session-import';
import { CallBook, countCall, storedMessage } from './call-book';
import { MAIN, type SyncSink, type ThreadInfo } from './sync-sink';

/** What a document source remembers: the keys synced, each with a short hash of its message. */
export interface DocumentState {
  keys: Record<string, string>;
  /** Messages synced before, whose content changed in a later rewrite (kept as first read). */
  changed: string[];
  /** Session key → thread: the file's first session is MAIN, later ones (Aider's runs) `session:<key>`. */
  sessions?: Record<string, string>;
  /** Calls recorded without a result once the file was still: a late result is not recorded again. */
  closed?: string[];
  /**
   * Messages an earlier copy of the session synced (another store of the agent, which then
   * moved the session here: adoptDocumentState), by hash and count: a message of this copy
   * under a key of its own is one of them while its hash is left here.
   */
  adopted?: Record<string, number>;
}

/**
 * The state of a session synced from an earlier store of the agent, for its copy in the
 * newer store (Cline's SDK file, Goose's sessions.db), which goes on in the same tasks: the
 * messages synced become `adopted` (the new store may key them differently), and the first
 * session's thread is the new copy's first session, whatever its key there.
 */
export function adoptDocumentState(saved: unknown): DocumentState | undefined {
  if (typeof saved !== 'object' || saved === null || !('keys' in saved)) return undefined;
  const state = structuredClone(saved) as DocumentState;
  const adopted: Record<string, number> = { ...state.adopted };
  for (const [key, value] of Object.entries(state.keys)) {
    // Usage and compaction keys stay: they are counted once under their key.
    if (value === 'usage' || value === 'compaction') continue;
    adopted[value] = (adopted[value] ?? 0) + 1;
    delete state.keys[key];
  }
  state.adopted = adopted;
  for (const [key, thread] of Object.entries(state.sessions ?? {}))
    if (thread === MAIN) delete state.sessions![key];
  return state;
}

/** A thread that is a session of its own (a top-level task), not a subagent. */
export function isSessionThread(thread: string): boolean {
  return thread === MAIN || thread.startsWith('session:');
}

const MAX_CHANGED_LISTED = 20;

interface SessionPass {
  thread: string;
  meta: SessionMeta;
  begun: boolean;
  firstAt?: string;
  lastAt?: string;
  model?: string;
}

/**
 * One read of a whole-document session (a SessionFormat's events, the same parsers as `cwb
 * import`): messages whose key was synced before are skipped (a rewrite repeats them), new
 * keys are written in document order. A known key whose message changed is listed, not
 * written again: the task keeps what it first read.
 *
 * Everything else is derived as session-import.ts derives it, from the whole document on
 * every pass (so a later pass refines it): title (the agent's own, else the first real
 * request), times (the session's, else its messages'), model, working directory, git branch
 * and remote; tool results are paired with their calls by id, first in first out, into
 * tools.jsonl records, and a result names its tool.
 *
 * Calls without a result are recorded as such (as `cwb import` records them at the end of
 * the file) once the agent moved on to another reply, or — the calls of the last reply —
 * once the file has been still (`final`); a result that comes after all is written as its
 * message, not recorded a second time.
 */
export async function readDocument(
  events: AsyncIterable<SessionEvent>,
  saved: unknown,
  sink: SyncSink,
  /** The file's birth and modification times: a session's times where it names none. */
  fromFile?: { created_at: string; completed_at: string },
  /** The file has been still for a while: the last reply's calls got no result. */
  final = false,
): Promise<{ state: DocumentState; messages: number; waiting: boolean }> {
  const state: DocumentState =
    typeof saved === 'object' && saved !== null && 'keys' in saved
      ? (saved as DocumentState)
      : { keys: {}, changed: [] };
  const sessions = (state.sessions ??= {});
  let messages = 0;
  let current: SessionPass | undefined;
  // Paired over the whole document on every pass, synced before or not; each session its
  // own calls (a Cline task's subagents come after it in the document, its last call open).
  const closed = new Set(state.closed ?? []);
  const books = new Map<string, CallBook>();
  const bookOf = (thread: string): CallBook => {
    let book = books.get(thread);
    if (!book) books.set(thread, (book = new CallBook(undefined, closed)));
    return book;
  };

  const close = (): void => {
    if (!current) return;
    const { meta } = current;
    const info: ThreadInfo = {};
    const first = normalizeTimestamp(meta.startedAt) ?? current.firstAt ?? fromFile?.created_at;
    const last =
      normalizeTimestamp(meta.endedAt) ??
      normalizeTimestamp(meta.updatedAt) ??
      current.lastAt ??
      fromFile?.completed_at;
    if (first !== undefined) info.firstTimestamp = first;
    if (last !== undefined) info.lastTimestamp = last < (first ?? last) ? first! : last;
    const title = titleLine(meta.title) ?? titleLine(meta.firstRequest);
    if (title !== undefined) info.title = title;
    if (meta.firstRequest !== undefined) info.prompt = meta.firstRequest;
    if (meta.cwd !== undefined) info.workdir = meta.cwd;
    const model = meta.model ?? current.model;
    if (model !== undefined) info.model = model;
    if (meta.sessionId !== undefined) info.sessionId = meta.sessionId;
    if (meta.gitBranch !== undefined) info.gitBranch = meta.gitBranch;
    if (meta.gitRemote !== undefined) info.gitRemote = meta.gitRemote;
    if (meta.parentSessionId !== undefined) info.parentSessionId = meta.parentSessionId;
    if (meta.description !== undefined) info.description = meta.description;
    sink.describe(current.thread, info);
    current = undefined;
  };

  for await (const event of events) {
    if (event.kind === 'session') {
      close();
      const thread = (sessions[event.key] ??= Object.values(sessions).includes(MAIN)
        ? `session:${event.key}`
        : MAIN);
      current = { thread, meta: { ...event.meta }, begun: false };
      // Known before the first message, so the task is created with it (task_id, as `cwb import`).
      sink.describe(thread, {
        sessionId: event.meta.sessionId ?? event.key,
        ...(event.meta.parentSessionId !== undefined && {
          parentSessionId: event.meta.parentSessionId,
        }),
        ...(event.meta.description !== undefined && { description: event.meta.description }),
      });
    } else if (event.kind === 'meta') {
      if (current) current.meta = { ...current.meta, ...event.meta };
    } else if (event.kind === 'message') {
      if (!current) throw new Error('the parser yielded a message before a session');
      messages++;
      const m = event.message;
      if (!current.begun) {
        current.begun = true;
        if (!current.meta.firstRequest && m.role === 'user') {
          const request = realRequest(m.content);
          if (request !== undefined) current.meta.firstRequest = request;
        }
        // The task is created on this first message: give it its title and prompt now.
        const title = titleLine(current.meta.title) ?? titleLine(current.meta.firstRequest);
        sink.describe(current.thread, {
          ...(title !== undefined && { title }),
          ...(current.meta.firstRequest !== undefined && {
            prompt: current.meta.firstRequest,
            request: current.meta.firstRequest,
          }),
          ...(current.meta.cwd !== undefined && { workdir: current.meta.cwd }),
          ...(current.meta.model !== undefined && { model: current.meta.model }),
        });
      }
      const at = normalizeTimestamp(m.timestamp);
      if (at) {
        current.firstAt ??= at;
        if (!current.lastAt || at > current.lastAt) current.lastAt = at;
      }
      current.model ??= event.model;
      const message = storedMessage(m);
      const hash = crypto
        .createHash('sha256')
        .update(JSON.stringify([message.role, message.content, message.tool_calls ?? null]))
        .digest('hex')
        .slice(0, 12);
      let known = state.keys[event.key];
      if (known === undefined && (state.adopted?.[hash] ?? 0) > 0) {
        // Synced from the session's earlier copy: this is that message.
        if (--state.adopted![hash]! === 0) delete state.adopted![hash];
        state.keys[event.key] = known = hash;
      }
      // A message synced before was recorded with its calls and results already.
      const book = bookOf(current.thread);
      if (m.role === 'assistant') book.reply(sink, current.thread, m, known === undefined);
      const called =
        m.role === 'tool' ? book.result(sink, current.thread, m, known === undefined) : undefined;
      if (known !== undefined) {
        if (
          known !== hash &&
          !state.changed.includes(event.key) &&
          state.changed.length < MAX_CHANGED_LISTED
        )
          state.changed.push(event.key);
        continue;
      }
      state.keys[event.key] = hash;
      if (message.tool_name === undefined && called) message.tool_name = called.name;
      sink.message(current.thread, message, event.pinned ? { pinned: true } : undefined);
      countCall(sink, current.thread, event);
    } else if (event.kind === 'compaction') {
      // Written once, under its key; the sink counts it on a redone range (sync-file.ts).
      if (!current) throw new Error('the parser yielded a compaction before a session');
      if (state.keys[event.key] !== undefined) continue;
      state.keys[event.key] = 'compaction';
      sink.compaction(current.thread, event.compaction);
    } else if (event.kind === 'usage') {
      // Read again on every pass: added once, under its key.
      if (current && state.keys[event.key] === undefined) {
        state.keys[event.key] = 'usage';
        sink.llmCall(current.thread, withTotal(event.usage), 0);
      }
    } else if (event.kind === 'skip') sink.skip(0, `${event.where}: ${event.reason}`);
  }
  let waiting = false;
  for (const [thread, book] of books) {
    if (final) book.closeAll(sink, thread);
    else waiting ||= book.waiting;
  }
  close();
  const closedIds = bookOf(MAIN).closedIds();
  if (closedIds.length > 0) state.closed = closedIds;
  else delete state.closed;
  return { state, messages, waiting };
}
