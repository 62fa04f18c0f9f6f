import { z } from 'zod';
import type { CurrentMessage, MessageKind, MessageRecord } from '../task-types';
import { taskUuidSchema, type BadLineInfo } from './common-schemas';
import { operation } from './operation';

export const MAX_MESSAGE_WINDOW = 1000;
export const MAX_SEARCH_HITS = 200;

export const readMessagesInput = z.strictObject({
  uuid: taskUuidSchema,
  /** history: messages.jsonl by seq; current: current.jsonl (what the model sees now) by line. */
  view: z.enum(['history', 'current']).default('history'),
  /** First seq (history) or 1-based line (current). */
  from: z.number().int().min(1).default(1),
  /** 0 answers only the total. */
  limit: z.number().int().min(0).max(MAX_MESSAGE_WINDOW).default(200),
  /**
   * history: fill `tokens_o200k` of each message that lacks it with an exact o200k count
   * (made now and cached by content hash; messages are appended with the estimate only).
   */
  exactTokens: z.boolean().default(false),
});

/** A line of current.jsonl with its 1-based position. */
export type CurrentLine = CurrentMessage & { index: number };

export type MessagesPage =
  | { view: 'history'; messages: MessageRecord[]; total: number; bad: BadLineInfo[] }
  | { view: 'current'; messages: CurrentLine[]; total: number; bad: BadLineInfo[] };

export const searchMessagesInput = z.strictObject({
  uuid: taskUuidSchema,
  query: z.string().min(1).max(500),
  caseSensitive: z.boolean().default(false),
  /** Continue a search from this seq (the previous answer's nextSeq). */
  fromSeq: z.number().int().min(1).default(1),
  limit: z.number().int().min(1).max(MAX_SEARCH_HITS).default(50),
});

export interface SearchHit {
  seq: number;
  role: string;
  kind?: MessageKind;
  /** Where the match is: the content, a tool call's arguments, or the tool name. */
  field: 'content' | 'tool_calls' | 'name';
  /** Up to ~160 characters around the match. */
  snippet: string;
  /** [start, end) of the match within the snippet. */
  match: [number, number];
}

export interface SearchResult {
  hits: SearchHit[];
  /** Where to continue (pass as fromSeq), or null when the whole history was searched. */
  nextSeq: number | null;
  /** Messages in the history. */
  total: number;
  /** Bytes of messages.jsonl read by this call (each call reads a bounded amount). */
  scannedBytes: number;
}

export const messagesOperations = {
  readMessages: operation(readMessagesInput).returns<MessagesPage>(),
  searchMessages: operation(searchMessagesInput).returns<SearchResult>(),
};
