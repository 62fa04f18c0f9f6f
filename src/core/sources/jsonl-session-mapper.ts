import path from 'node:path';
import type { JsonlSessionAgent, LineEvent } from '../import/jsonl-session';
import { mergeMeta, subagentMeta } from '../import/jsonl-session';
import type { SessionMeta } from '../import/session-format';
import { realRequest, titleLine } from '../import/session-meta';
import { isRecord, normalizeTimestamp } from '../import/text';
import { withTotal } from '../import/session-import';
import type { ToolCallStart } from '../import/transcript-writer';
import { CallBook, countCall, storedMessage } from './call-book';
import { MAIN, type CreateEntryMapper, type SyncSink, type ThreadInfo } from './sync-sink';

type SavedBook = { calls?: Record<string, ToolCallStart[]>; closed?: string[] };

/** One thread of the session: the main conversation, or a sub-agent running inside it. */
interface ThreadState {
  book: SavedBook;
  meta: Partial<SessionMeta>;
  begun?: boolean;
  first?: string;
  last?: string;
}

interface MapperState extends ThreadState {
  converter?: unknown;
  /** Sub-agents whose events the session's file holds (Copilot CLI), by thread key. */
  subagents?: Record<string, ThreadState>;
}

/**
 * A JSON Lines agent (src/core/import/jsonl-session.ts) read line by line for live sync: its
 * converter gives the same events as on `cwb import`, and this turns them into what import
 * derives — the task (created on the first message, with the session id and the metadata
 * seen so far), the title (the agent's own, else the first real request), the first and
 * last message times, tool calls paired with their results by id into tools.jsonl records.
 * Calls the agent moved on from are recorded without a result when its next reply is read,
 * those of the last reply once the file is still (as `cwb import` does at the file's end).
 * A line of a sub-agent (`thread`) goes to that sub-agent's task, with its own calls.
 */
export function jsonlSessionMapper(agent: JsonlSessionAgent): CreateEntryMapper {
  return (saved, sink, source) => {
    const state: MapperState =
      isRecord(saved) && isRecord(saved.book) && isRecord(saved.meta)
        ? (saved as unknown as MapperState)
        : { book: {}, meta: {} };
    const converter = agent.converter(state.converter, source.path);
    const books = new Map<string, CallBook>();
    const threadOf = (key: string): ThreadState => {
      if (key === MAIN) return state;
      state.subagents ??= {};
      return (state.subagents[key] ??= { book: {}, meta: {} });
    };
    const bookOf = (key: string): CallBook => {
      let book = books.get(key);
      if (!book) books.set(key, (book = new CallBook(threadOf(key).book)));
      return book;
    };
    const begin = (key: string, t: ThreadState, e: LineEvent & { kind: 'message' }): void => {
      t.begun = true;
      const m = e.message;
      if (t.meta.firstRequest === undefined && m.role === 'user') {
        const request = realRequest(m.content);
        if (request !== undefined) t.meta.firstRequest = request;
      }
      if (key === MAIN) {
        mergeMeta(t.meta, agent.metaOf?.(source.path) ?? {});
        t.meta.sessionId ??= path.basename(source.path);
      } else {
        const main = { ...(agent.metaOf?.(source.path) ?? {}), ...state.meta };
        mergeMeta(t.meta, subagentMeta(main));
      }
    };
    const message = (key: string, e: LineEvent & { kind: 'message' }): void => {
      const t = threadOf(key);
      if (!t.begun) begin(key, t, e);
      const m = e.message;
      const at = normalizeTimestamp(m.timestamp);
      if (at !== undefined) {
        t.first ??= at;
        if (t.last === undefined || at > t.last) t.last = at;
      }
      describe(sink, key, t);
      const book = bookOf(key);
      if (m.role === 'assistant') book.reply(sink, key, m, true);
      const called = m.role === 'tool' ? book.result(sink, key, m, true) : undefined;
      const stored = storedMessage(m);
      if (stored.tool_name === undefined && called) stored.tool_name = called.name;
      sink.message(key, stored, e.pinned ? { pinned: true } : undefined);
      countCall(sink, key, e);
    };
    return {
      line(value, lineNo) {
        for (const e of converter.line(value, lineNo)) {
          const key = e.thread ?? MAIN;
          if (e.kind === 'meta') {
            const t = threadOf(key);
            mergeMeta(t.meta, e.meta);
            if (t.begun) describe(sink, key, t);
          } else if (e.kind === 'skip') sink.skip(lineNo, `${e.where}: ${e.reason}`);
          else if (e.kind === 'ignore') sink.ignore(e.what);
          else if (e.kind === 'usage') {
            if (threadOf(key).begun) sink.llmCall(key, withTotal(e.usage), 0);
          } else if (e.kind === 'compaction') sink.compaction(key, e.compaction);
          else message(key, e);
        }
      },
      end(final) {
        if (final)
          for (const key of [MAIN, ...Object.keys(state.subagents ?? {})])
            bookOf(key).closeAll(sink, key);
        const waiting = [MAIN, ...Object.keys(state.subagents ?? {})].some(
          (k) => bookOf(k).waiting,
        );
        return { held: [], waiting: !final && waiting };
      },
      save: () => {
        for (const [key, book] of books) threadOf(key).book = book.save();
        return { ...state, converter: converter.save() };
      },
    };
  };
}

/** The row as `cwb import` fills it from the session's metadata (session-import.ts). */
function describe(sink: SyncSink, key: string, t: ThreadState): void {
  const meta = t.meta;
  const info: ThreadInfo = {};
  const title = titleLine(meta.title) ?? titleLine(meta.firstRequest);
  if (title !== undefined) info.title = title;
  if (meta.firstRequest !== undefined) {
    info.prompt = meta.firstRequest;
    info.request = meta.firstRequest;
  }
  if (meta.description !== undefined) info.description = meta.description;
  if (meta.parentSessionId !== undefined) info.parentSessionId = meta.parentSessionId;
  if (meta.sessionId !== undefined) info.sessionId = meta.sessionId;
  if (meta.cwd !== undefined) info.workdir = meta.cwd;
  if (meta.model !== undefined) info.model = meta.model;
  if (meta.gitBranch !== undefined) info.gitBranch = meta.gitBranch;
  if (meta.gitRemote !== undefined) info.gitRemote = meta.gitRemote;
  if (t.first !== undefined) info.firstTimestamp = t.first;
  if (t.last !== undefined) info.lastTimestamp = t.last;
  sink.describe(key, info);
}
