import { z } from 'zod';
import { isoDateSchema } from './common-schemas';
import { operation } from './operation';

export const MAX_SESSION_SEARCH_HITS = 200;

/** Roles a search can be limited to (`reasoning`: an assistant's thinking). */
export const SEARCH_ROLES = ['user', 'assistant', 'reasoning', 'tool', 'system'] as const;
export type SearchRole = (typeof SEARCH_ROLES)[number];

export const searchSessionsInput = z.strictObject({
  /** Words (all must appear), "a phrase", prefix*; a path or identifier is its words in a row. */
  query: z.string().min(1).max(500),
  /** The text exactly as typed (case and punctuation), for paths and identifiers. */
  exact: z.boolean().default(false),
  /** tasks.agent (claude-code, codex, …; '' = tasks this app ran). */
  agent: z.string().max(100).optional(),
  /** A repository (owner/name or name). */
  repo: z.string().min(1).max(500).optional(),
  /** Sessions that ran in this folder or one inside it (their working directory). */
  folder: z.string().min(1).max(4096).optional(),
  /** Sessions active on or after this date (their last activity). */
  since: isoDateSchema.optional(),
  role: z.enum(SEARCH_ROLES).optional(),
  /** A tool's name: tool outputs of that tool and calls to it. */
  tool: z.string().min(1).max(200).optional(),
  limit: z.number().int().min(1).max(MAX_SESSION_SEARCH_HITS).default(50),
});
export type SearchSessionsInput = z.input<typeof searchSessionsInput>;

export interface SessionSearchHit {
  uuid: string;
  seq: number;
  /** ~160 characters around the match; `match` is [start, end) of it within the snippet. */
  snippet: string;
  match: [number, number] | null;
  role: string;
  /** Tools the message calls or answers. */
  tool: string | null;
  timestamp: string | null;
  /** The session's own facts, for grouping hits by session. */
  title: string | null;
  agent: string;
  repository: string | null;
}

export interface SessionSearchResult {
  /** Newest sessions first, and within a session its messages in order. */
  hits: SessionSearchHit[];
  /** More messages match than `limit`. */
  more: boolean;
  /** Tasks whose newest messages are not indexed yet (their hits may be missing). */
  pending: number;
}

export const searchOperations = {
  searchSessions: operation(searchSessionsInput).returns<SessionSearchResult>(),
};
