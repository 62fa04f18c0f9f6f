import path from 'node:path';
import { openHandsEvent } from '../import/openhands';
import { realRequest, titleLine } from '../import/session-meta';
import { isRecord, naiveUtcTimestamp } from '../import/text';
import type { ToolCallStart } from '../import/transcript-writer';
import { CallBook, countCall, storedMessage } from './call-book';
import { MAIN, type CreateEntryMapper } from './sync-sink';

interface EventsState {
  book: { calls?: Record<string, ToolCallStart[]>; closed?: string[] };
  /** Model response ids counted lately (the actions of one response follow each other). */
  responses: string[];
  /** The first user message was seen: it titles the task. */
  prompted?: boolean;
}

const RESPONSES_KEPT = 100;

/**
 * An OpenHands session folder (`sessions/<id>/events/`, one `<n>.json` per event, each
 * written once), event by event: each new event file is new messages, mapped as `cwb import`
 * maps the folder (src/core/import/openhands.ts, `openHandsEvent`). What import learns from
 * the whole folder — the first user request, the model, the first and last times, the
 * session id (the folder's name) — is described as the events arrive; calls are paired with
 * the observations that answer them across syncs.
 */
export const openHandsEventsMapper: CreateEntryMapper = (saved, sink, source) => {
  const state: EventsState =
    isRecord(saved) && isRecord(saved.book) && Array.isArray(saved.responses)
      ? (saved as unknown as EventsState)
      : { book: {}, responses: [] };
  const book = new CallBook(state.book);
  const seen = new Set(state.responses);
  const sessionId = path.basename(path.dirname(source.path));
  sink.describe(MAIN, { sessionId });
  return {
    line(value, lineNo) {
      const at = isRecord(value) ? naiveUtcTimestamp(value.timestamp) : undefined;
      if (at !== undefined) sink.describe(MAIN, { firstTimestamp: at, lastTimestamp: at });
      const event = openHandsEvent(value, lineNo - 1, seen);
      if (event.kind === 'skip') return sink.skip(lineNo, `${event.where}: ${event.reason}`);
      if (event.kind !== 'message')
        return event.kind === 'ignore' ? sink.ignore(event.what) : undefined;
      const m = event.message;
      if (m.role === 'user' && !state.prompted) {
        state.prompted = true;
        const request = realRequest(m.content);
        const title = titleLine(request);
        if (request !== undefined)
          sink.describe(MAIN, { prompt: request, ...(title !== undefined && { title }) });
      }
      if (event.model !== undefined) sink.describe(MAIN, { model: event.model });
      if (m.role === 'assistant') book.reply(sink, MAIN, m, true);
      const called = m.role === 'tool' ? book.result(sink, MAIN, m, true) : undefined;
      const message = storedMessage(m);
      if (message.tool_name === undefined && called) message.tool_name = called.name;
      sink.message(MAIN, message);
      countCall(sink, MAIN, event);
    },
    end(final) {
      if (final) book.closeAll(sink, MAIN);
      return { held: [], waiting: !final && book.waiting };
    },
    save: () => ({
      book: book.save(),
      responses: [...seen].slice(-RESPONSES_KEPT),
      ...(state.prompted && { prompted: true }),
    }),
  };
};
