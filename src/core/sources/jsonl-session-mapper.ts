import path from 'node:path';
import type { JsonlSessionAgent } from '../import/jsonl-session';
import { mergeMeta } from '../import/jsonl-session';
import type { SessionMeta } from '../import/session-format';
import { realRequest, titleLine } from '../import/session-meta';
import { isRecord, normalizeTimestamp } from '../import/text';
import { withTotal } from '../import/session-import';
import type { ToolCallStart } from '../import/transcript-writer';
import { CallBook, countCall, storedMessage } from './call-book';
import { MAIN, type CreateEntryMapper, type SyncSink, type ThreadInfo } from './sync-sink';

interface MapperState {
  converter?: unknown;
  book: { calls?: Record<string, ToolCallStart[]>; closed?: string[] };
  meta: Partial<SessionMeta>;
  begun?: boolean;
  first?: string;
  last?: string;
}

/**
 * A JSON Lines agent (src/core/import/jsonl-session.ts) read line by line for live sync: its
 * converter gives the same events as on `cwb import`, and this turns them into what import
 * derives — the task (created on the first message, with the session id and the metadata
 * seen so far), the title (the agent's own, else the first real request), the first and
 * last message times, tool calls paired with their results by id into tools.jsonl records.
 * Calls the agent moved on from are recorded without a result when its next reply is read,
 * those of the last reply once the file is still (as `cwb import` does at the file's end).
 */
export function jsonlSessionMapper(agent: JsonlSessionAgent): CreateEntryMapper {
  return (saved, sink, source) => {
    const state: MapperState =
      isRecord(saved) && isRecord(saved.book) && isRecord(saved.meta)
        ? (saved as unknown as MapperState)
        : { book: {}, meta: {} };
    const converter = agent.converter(state.converter, source.path);
    const book = new CallBook(state.book);
    return {
      line(value, lineNo) {
        for (const e of converter.line(value, lineNo)) {
          if (e.kind === 'meta') {
            mergeMeta(state.meta, e.meta);
            if (state.begun) describe(sink, state);
          } else if (e.kind === 'skip') sink.skip(lineNo, `${e.where}: ${e.reason}`);
          else if (e.kind === 'ignore') sink.ignore(e.what);
          else if (e.kind === 'usage') {
            if (state.begun) sink.llmCall(MAIN, withTotal(e.usage), 0);
          } else if (e.kind === 'compaction') sink.compaction(MAIN, e.compaction);
          else {
            const m = e.message;
            if (!state.begun) {
              state.begun = true;
              if (state.meta.firstRequest === undefined && m.role === 'user') {
                const request = realRequest(m.content);
                if (request !== undefined) state.meta.firstRequest = request;
              }
              mergeMeta(state.meta, agent.metaOf?.(source.path) ?? {});
              state.meta.sessionId ??= path.basename(source.path);
            }
            const at = normalizeTimestamp(m.timestamp);
            if (at !== undefined) {
              state.first ??= at;
              if (state.last === undefined || at > state.last) state.last = at;
            }
            describe(sink, state);
            if (m.role === 'assistant') book.reply(sink, MAIN, m, true);
            const called = m.role === 'tool' ? book.result(sink, MAIN, m, true) : undefined;
            const message = storedMessage(m);
            if (message.tool_name === undefined && called) message.tool_name = called.name;
            sink.message(MAIN, message, e.pinned ? { pinned: true } : undefined);
            countCall(sink, MAIN, e);
          }
        }
      },
      end(final) {
        if (final) book.closeAll(sink, MAIN);
        return { held: [], waiting: !final && book.waiting };
      },
      save: () => ({ ...state, converter: converter.save(), book: book.save() }),
    };
  };
}

/** The row as `cwb import` fills it from the session's metadata (session-import.ts). */
function describe(sink: SyncSink, state: MapperState): void {
  const meta = state.meta;
  const info: ThreadInfo = {};
  const title = titleLine(meta.title) ?? titleLine(meta.firstRequest);
  if (title !== undefined) info.title = title;
  if (meta.firstRequest !== undefined) {
    info.prompt = meta.firstRequest;
    info.request = meta.firstRequest;
  }
  if (meta.sessionId !== undefined) info.sessionId = meta.sessionId;
  if (meta.cwd !== undefined) info.workdir = meta.cwd;
  if (meta.model !== undefined) info.model = meta.model;
  if (meta.gitBranch !== undefined) info.gitBranch = meta.gitBranch;
  if (meta.gitRemote !== undefined) info.gitRemote = meta.gitRemote;
  if (state.first !== undefined) info.firstTimestamp = state.first;
  if (state.last !== undefined) info.lastTimestamp = state.last;
  sink.describe(MAIN, info);
}
