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

/** What one line means. `session` events are never yielded by converters. */
export type LineEvent = Exclude<SessionEvent, { kind: 'session' }>;

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
          if (e.kind === 'meta') mergeMeta(meta, e.meta);
      }
      mergeMeta(meta, agent.metaOf?.(file) ?? {});
      yield { kind: 'session', key: path.basename(file), meta };
      converter = agent.converter(undefined, file);
      for await (const raw of readJsonl(file)) {
        if (!raw.ok) {
          const where = `line ${raw.lineNo}`;
          yield { kind: 'skip', key: `L${raw.lineNo}`, where, reason: raw.error };
          continue;
        }
        for (const e of converter.line(raw.value, raw.lineNo)) if (e.kind !== 'meta') yield e;
      }
    },
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
