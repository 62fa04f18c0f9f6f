/**
 * Agents whose session is a JSON Lines file they append to (GitHub Copilot CLI, Cursor, Qwen
 * Code, Pi, OpenClaw, Factory Droid). Each agent gives a line converter: a small state machine
 * that turns one parsed line into SessionEvents (metadata, messages, skips, ignores) and
 * keeps its state as plain JSON. The same converter serves `cwb import` (this SessionFormat)
 * and live sync (src/core/sources/jsonl-session-mapper.ts, an EntryMapper), so both give the
 * same messages, tool records, LLM calls and row.
 *
 * Metadata rule shared by both readers: the title is the last one the session names (a
 * rename wins), every other field (session id, model, working directory, first request)
 * the first one seen. Converters give the model as metadata, never on a message, so that
 * import (which reads the metadata of the whole file first) and sync (line by line) agree.
 */
import path from 'node:path';
import { readJsonl } from '../jsonl/jsonl-reader';
import type { AgentId, SessionEvent, SessionFormat, SessionMeta } from './session-format';
import { isRecord } from './text';

/**
 * What one line means. `session` events are never yielded by converters. `thread`: the
 * line belongs to a sub-agent running inside the session (Copilot CLI writes its events
 * into the session's own file): its messages, usage and metadata go to a task of its own
 * under the session's. Skips and ignores are the file's, never a thread's.
 */
export type LineEvent = Exclude<SessionEvent, { kind: 'session' }> & { thread?: string };

export interface LineConverter {
  line(value: unknown, lineNo: number): LineEvent[];
  /** Plain JSON; a converter made from it gives the same events for the same lines. */
  save(): unknown;
}

export interface JsonlSessionAgent {
  agent: AgentId;
  /** Whether a parsed line among the file's first ones shows this agent's format. */
  sniffLine(value: Record<string, unknown>): boolean;
  converter(saved: unknown, file: string): LineConverter;
  /** What the file's path says (the session id in its name): where the lines say nothing. */
  metaOf?(file: string): Partial<SessionMeta>;
}

/** Lines of the head looked at by `sniff`. */
const SNIFF_LINES = 5;

/** Merges metadata as both readers do: the last title, the first of everything else. */
export function mergeMeta(into: Partial<SessionMeta>, meta: Partial<SessionMeta>): void {
  for (const [key, value] of Object.entries(meta) as [keyof SessionMeta, unknown][]) {
    if (value === undefined) continue;
    if (key === 'title' || key === 'extra')
      (into as Record<string, unknown>)[key] =
        key === 'extra' ? { ...into.extra, ...(value as object) } : value;
    else if (into[key] === undefined) (into as Record<string, unknown>)[key] = value;
  }
}

export function jsonlSessionFormat(agent: JsonlSessionAgent): SessionFormat {
  return {
    agent: agent.agent,
    input: 'text',
    sniff: (head) => typeof head === 'string' && sniffHead(agent, head),
    async *parse(file) {
      // The title may come last (a rename) and the first request after notices: the
      // metadata of the whole file is known before the task is created.
      const meta: SessionMeta = { agent: agent.agent };
      let converter = agent.converter(undefined, file);
      for await (const raw of readJsonl(file)) {
        if (!raw.ok) continue;
        for (const e of converter.line(raw.value, raw.lineNo))
          if (e.kind === 'meta' && e.thread === undefined) mergeMeta(meta, e.meta);
      }
      mergeMeta(meta, agent.metaOf?.(file) ?? {});
      yield { kind: 'session', key: path.basename(file), meta };
      const threads = new Map<string, Partial<SessionMeta>>();
      converter = agent.converter(undefined, file);
      for await (const raw of readJsonl(file)) {
        if (!raw.ok) {
          const where = `line ${raw.lineNo}`;
          yield { kind: 'skip', key: `L${raw.lineNo}`, where, reason: raw.error };
          continue;
        }
        for (const { thread, ...e } of converter.line(raw.value, raw.lineNo)) {
          if (thread === undefined) {
            if (e.kind !== 'meta') yield e;
          } else {
            const known = threads.get(thread) ?? {};
            threads.set(thread, known);
            if (e.kind === 'meta') mergeMeta(known, e.meta);
          }
        }
      }
      // Each sub-agent after the session, one more pass each (there are few): a task of its
      // own, under the session's (session-import.ts finds it by the session id).
      for (const [thread, known] of threads) {
        yield {
          kind: 'session',
          key: `${path.basename(file)}#${thread}`,
          meta: { ...subagentMeta(meta), ...known, agent: agent.agent },
        };
        converter = agent.converter(undefined, file);
        for await (const raw of readJsonl(file)) {
          if (!raw.ok) continue;
          for (const e of converter.line(raw.value, raw.lineNo))
            if (e.thread === thread && e.kind !== 'meta') yield withoutThread(e);
        }
      }
    },
  };
}

function withoutThread(e: LineEvent): SessionEvent {
  const { thread: _thread, ...event } = e;
  return event;
}

/** What a sub-agent shares with its session: where it ran, and whose it is. */
export function subagentMeta(session: Partial<SessionMeta>): Partial<SessionMeta> {
  return {
    ...(session.sessionId !== undefined && {
      sessionId: session.sessionId,
      parentSessionId: session.sessionId,
    }),
    ...(session.cwd !== undefined && { cwd: session.cwd }),
    ...(session.gitBranch !== undefined && { gitBranch: session.gitBranch }),
    ...(session.gitRemote !== undefined && { gitRemote: session.gitRemote }),
  };
}

/** The first lines of a file's head that parse, tested against the agent's sniffer. */
export function sniffHead(agent: JsonlSessionAgent, head: string): boolean {
  const lines = head.split('\n').slice(0, SNIFF_LINES);
  for (const line of lines) {
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch {
      continue;
    }
    if (isRecord(value)) return agent.sniffLine(value);
  }
  return false;
}
