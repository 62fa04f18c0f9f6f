import crypto from 'node:crypto';
import type { TokenUsage } from '../../shared/task-types';
import type { NewMessage } from '../store/message-store';
import type { SessionEvent, SessionMeta } from '../import/session-format';
import { realRequest, titleLine } from '../import/session-meta';
import { withTotal } from '../import/session-import';
import { clip, durationBetween, normalizeTimestamp } from '../import/text';
import { MAIN, type SyncSink, type ThreadInfo } from './sync-sink';

/** What a document source remembers: the keys synced, each with a short hash of its message. */
export interface DocumentState {
  keys: Record<string, string>;
  /** Messages synced before, whose content changed in a later rewrite (kept as first read). */
  changed: string[];
  /** Session key → thread: the file's first session is MAIN, later ones (Aider's runs) `session:<key>`. */
  sessions?: Record<string, string>;
}

/** A thread that is a session of its own (a top-level task), not a subagent. */
export function isSessionThread(thread: string): boolean {
  return thread === MAIN || thread.startsWith('session:');
}

const MAX_CHANGED_LISTED = 20;
/** `error` of tools.jsonl holds the start of a failed result (as TranscriptWriter). */
const ERROR_CHARS = 2000;

interface CallStart {
  name: string;
  args: unknown;
  timestamp?: string;
}

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
 */
export async function readDocument(
  events: AsyncIterable<SessionEvent>,
  saved: unknown,
  sink: SyncSink,
  /** The file's birth and modification times: a session's times where it names none. */
  fromFile?: { created_at: string; completed_at: string },
): Promise<{ state: DocumentState; messages: number }> {
  const state: DocumentState =
    typeof saved === 'object' && saved !== null && 'keys' in saved
      ? (saved as DocumentState)
      : { keys: {}, changed: [] };
  const sessions = (state.sessions ??= {});
  let messages = 0;
  let current: SessionPass | undefined;
  const calls = new Map<string, CallStart[]>();

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
    sink.describe(current.thread, info);
    current = undefined;
  };

  for await (const event of events) {
    if (event.kind === 'session') {
      close();
      const thread = (sessions[event.key] ??=
        Object.keys(sessions).length === 0 ? MAIN : `session:${event.key}`);
      current = { thread, meta: { ...event.meta }, begun: false };
      // Known before the first message, so the task is created with it (task_id, as `cwb import`).
      sink.describe(thread, { sessionId: event.meta.sessionId ?? event.key });
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
          ...(current.meta.firstRequest !== undefined && { prompt: current.meta.firstRequest }),
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
      const message: NewMessage = {
        role: m.role,
        content: m.content,
        ...(m.tool_calls && m.tool_calls.length > 0 && { tool_calls: m.tool_calls }),
        ...(m.tool_call_id !== undefined && { tool_call_id: m.tool_call_id }),
        ...(m.tool_name !== undefined && { tool_name: m.tool_name }),
        ...(m.name !== undefined && { name: m.name }),
        ...(m.historyOnly && { historyOnly: true }),
        ...(at !== undefined && { timestamp: at }),
      };
      const hash = crypto
        .createHash('sha256')
        .update(JSON.stringify([message.role, message.content, message.tool_calls ?? null]))
        .digest('hex')
        .slice(0, 12);
      const known = state.keys[event.key];
      // Calls and results are paired over the whole document, synced before or not.
      let called: CallStart | undefined;
      if (m.role === 'assistant') {
        // The agent went on without their results: those calls never got one. `cwb import`
        // records them as failed at the end of the file; a live file may still get them, so
        // they are recorded once a later reply shows the agent moved on (by that reply's sync).
        if (known === undefined) {
          for (const [id, queue] of calls)
            for (const start of queue)
              sink.tool(current.thread, {
                tool: start.name,
                args: start.args,
                result: null,
                status: 'error',
                error: 'no result in the transcript',
                duration_ms: 0,
                tool_call_id: id,
                ...(start.timestamp !== undefined && { timestamp: start.timestamp }),
              });
        }
        calls.clear();
        for (const call of m.tool_calls ?? []) {
          const start: CallStart = {
            name: call.function.name,
            args: parseArgs(call.function.arguments),
            ...(at !== undefined && { timestamp: at }),
          };
          const queue = calls.get(call.id);
          if (queue) queue.push(start);
          else calls.set(call.id, [start]);
        }
      } else if (m.role === 'tool') {
        const id = m.tool_call_id ?? '';
        const queue = calls.get(id);
        called = queue?.shift();
        if (queue && queue.length === 0) calls.delete(id);
      }
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
      if (m.role === 'tool') {
        const isError = m.isError === true;
        sink.tool(current.thread, {
          tool: called?.name ?? 'unknown',
          args: called?.args ?? null,
          result: m.content,
          status: isError ? 'error' : 'success',
          error: isError ? clip(m.content ?? 'error', ERROR_CHARS) : null,
          duration_ms: durationBetween(called?.timestamp, at),
          tool_call_id: m.tool_call_id ?? '',
          ...((at ?? called?.timestamp) !== undefined && { timestamp: (at ?? called?.timestamp)! }),
        });
        if (message.tool_name === undefined && called) message.tool_name = called.name;
      }
      sink.message(current.thread, message);
      if (event.llmCall) sink.llmCall(current.thread, event.usage && usageOf(event.usage));
      else if (event.usage) sink.llmCall(current.thread, usageOf(event.usage), 0);
    } else if (event.kind === 'skip') sink.skip(0, `${event.where}: ${event.reason}`);
  }
  close();
  return { state, messages };
}

function usageOf(u: Partial<TokenUsage>): Partial<TokenUsage> {
  return withTotal(u);
}

function parseArgs(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}
