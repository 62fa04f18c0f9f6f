import crypto from 'node:crypto';
import type { ToolCall, TokenUsage } from '../../shared/task-types';
import {
  ClaudeEntrySchema,
  blocksOf,
  type ClaudeEntry,
  type ClaudeUsage,
} from '../import/claude-code-entry';
import { usageWithTotal } from '../import/transcript-writer';
import {
  asNumber,
  clip,
  contentText,
  durationBetween,
  isRecord,
  normalizeTimestamp,
} from '../import/text';
import { realRequest } from '../import/session-meta';
import { REASONING_NAME } from '../import/types';
import { MAIN, type CreateLineMapper, type LineMapper, type SyncSink } from './sync-sink';

interface PendingCall {
  name: string;
  args: unknown;
  timestamp?: string;
}

interface State {
  /**
   * The main thread's Task/Agent calls: a hash of the prompt → the call's description, which
   * titles the subagent that gets that prompt (as the importer's scan).
   */
  taskCalls?: Record<string, string>;
  /** Sidechain entry uuid → its thread (only sidechains: about 100 bytes each). */
  router: Record<string, string>;
  /** Tool calls waiting for their result, by id. */
  calls: Record<string, PendingCall>;
  /** Last response id counted per thread: a response split over two batches is one LLM call. */
  lastResponse: Record<string, string>;
  /** A compact_boundary entry waiting for its summary entry. */
  boundary?: { trigger?: string; preTokens?: number };
  /** The usage counted for each thread's last response (null: none). */
  responseUsage?: Record<string, TokenUsage | null>;
}

interface Group {
  thread: string;
  key: string;
  texts: string[];
  reasoning: string[];
  toolCalls: ToolCall[];
  timestamp?: string;
  usage?: TokenUsage;
}

/** Tool arguments kept across batches are cut to this (the common case pairs within one). */
const SAVED_ARGS_CHARS = 4000;
const ERROR_CHARS = 2000;

/**
 * Claude Code sessions, line by line, for live sync. The mapping is the importer's
 * (ClaudeThread): consecutive entries of one `message.id` are one assistant message,
 * thinking blocks are history-only reasoning messages, each tool_result a tool message
 * paired with its call in tools.jsonl, sidechains are subagent threads. Differences, all
 * from reading a growing file: a response whose entries arrive in two syncs is two
 * assistant messages (one LLM call), and a compaction is its summary message (kind
 * `summary`) without a summaries.jsonl record — that file belongs to the workbench's own
 * compactions of the task.
 */
export const claudeCodeLines: CreateLineMapper = (saved, sink) => {
  const state: State = isState(saved) ? saved : { router: {}, calls: {}, lastResponse: {} };
  let group: Group | undefined;
  const live = new Map<string, PendingCall>();

  const flush = (): void => {
    const g = group;
    if (!g) return;
    group = undefined;
    for (const text of g.reasoning) {
      sink.message(g.thread, {
        role: 'assistant',
        content: text,
        name: REASONING_NAME,
        historyOnly: true,
        ...(g.timestamp !== undefined && { timestamp: g.timestamp }),
      });
    }
    if (g.texts.length === 0 && g.toolCalls.length === 0) return;
    sink.message(g.thread, {
      role: 'assistant',
      content: g.texts.length > 0 ? g.texts.join('\n\n') : null,
      ...(g.toolCalls.length > 0 && { tool_calls: g.toolCalls }),
      ...(g.usage !== undefined && { usage: g.usage }),
      ...(g.timestamp !== undefined && { timestamp: g.timestamp }),
    });
  };

  const route = (entry: ClaudeEntry, lineNo: number): string => {
    if (entry.isSidechain !== true) return MAIN;
    if (entry.uuid !== undefined && state.router[entry.uuid] !== undefined)
      return state.router[entry.uuid]!;
    let thread: string;
    if (entry.agentId !== undefined) thread = `agent:${entry.agentId}`;
    else {
      const parent = entry.parentUuid ? state.router[entry.parentUuid] : undefined;
      thread = parent ?? `root:${entry.uuid ?? `line-${lineNo}`}`;
    }
    if (entry.uuid !== undefined) state.router[entry.uuid] = thread;
    return thread;
  };

  const assistant = (thread: string, entry: ClaudeEntry, lineNo: number): void => {
    const message = entry.message;
    const key = message?.id ?? entry.requestId ?? entry.uuid ?? `line-${lineNo}`;
    if (group && (group.key !== key || group.thread !== thread)) flush();
    const timestamp = normalizeTimestamp(entry.timestamp);
    if (!group) {
      group = {
        thread,
        key,
        texts: [],
        reasoning: [],
        toolCalls: [],
        ...(timestamp !== undefined && { timestamp }),
      };
      if (state.lastResponse[thread] !== key && message?.model !== '<synthetic>') {
        state.lastResponse[thread] = key;
        const usage = message?.usage ? toUsage(message.usage) : undefined;
        if (usage) group.usage = usage;
        (state.responseUsage ??= {})[thread] = usage ?? null;
        sink.llmCall(thread, usage);
        return blocks(group, entry, lineNo, timestamp);
      }
    }
    // Later entries of a response repeat its usage, growing (output tokens): the last one
    // counts, as in `cwb import`; the difference to what was counted is added.
    const counted = state.responseUsage?.[thread];
    if (state.lastResponse[thread] === key && message?.usage && counted !== undefined) {
      const usage = toUsage(message.usage);
      group.usage = usage;
      const delta: Partial<TokenUsage> = {};
      let changed = false;
      for (const field of Object.keys(usage) as (keyof TokenUsage)[]) {
        const d = usage[field] - (counted?.[field] ?? 0);
        if (d !== 0) changed = true;
        delta[field] = d;
      }
      if (changed) {
        state.responseUsage![thread] = usage;
        sink.llmCall(thread, delta, 0);
      }
    }
    blocks(group, entry, lineNo, timestamp);
  };

  const blocks = (
    g: Group,
    entry: ClaudeEntry,
    lineNo: number,
    timestamp: string | undefined,
  ): void => {
    const message = entry.message;
    blocksOf(message?.content).forEach((block, i) => {
      if (block.type === 'text') g.texts.push(block.text);
      else if (block.type === 'thinking') g.reasoning.push(block.thinking);
      else if (block.type === 'redacted_thinking') g.reasoning.push('[redacted thinking]');
      else if (block.type === 'tool_use') {
        const id = block.id ?? `toolu_line${lineNo}_${i}`;
        g.toolCalls.push({
          id,
          type: 'function',
          function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
        });
        live.set(id, {
          name: block.name,
          args: block.input ?? {},
          ...(timestamp !== undefined && { timestamp }),
        });
      }
    });
  };

  const takeCall = (id: string): PendingCall | undefined => {
    const call = live.get(id) ?? state.calls[id];
    live.delete(id);
    delete state.calls[id];
    return call;
  };

  const user = (thread: string, entry: ClaudeEntry): void => {
    const timestamp = normalizeTimestamp(entry.timestamp);
    const at = timestamp !== undefined ? { timestamp } : {};
    const content = entry.message?.content;
    if (entry.isCompactSummary === true) {
      // The agent's own compaction: a summaries.jsonl record, then its summary message (as import).
      const boundary = state.boundary;
      delete state.boundary;
      const summary = contentText(content);
      sink.compaction(thread, {
        strategy: 'claude-code-compact',
        summary,
        extra: {
          source_format: 'claude-code',
          ...(boundary?.trigger !== undefined && { trigger: boundary.trigger }),
          ...(boundary?.preTokens !== undefined && { pre_tokens: boundary.preTokens }),
        },
      });
      sink.message(thread, { role: 'user', content: summary, kind: 'summary', ...at });
      return;
    }
    if (typeof content === 'string') {
      sink.message(thread, { role: 'user', content, ...at });
      return;
    }
    const rest: string[] = [];
    let restBlocks = 0;
    for (const block of blocksOf(content)) {
      if (block.type === 'tool_result') {
        const text = contentText(block.content);
        const call = takeCall(block.tool_use_id);
        sink.message(thread, {
          role: 'tool',
          content: text,
          tool_call_id: block.tool_use_id,
          ...(call !== undefined && { tool_name: call.name }),
          ...at,
        });
        sink.tool(thread, {
          tool: call?.name ?? 'unknown',
          args: call?.args ?? null,
          result: text,
          status: block.is_error ? 'error' : 'success',
          error: block.is_error ? clip(text || 'error', ERROR_CHARS) : null,
          duration_ms: durationBetween(call?.timestamp, timestamp),
          tool_call_id: block.tool_use_id,
          ...at,
        });
      } else {
        restBlocks++;
        const text =
          block.type === 'text'
            ? block.text
            : block.type === 'other'
              ? contentText([block.raw])
              : block.type === 'thinking'
                ? block.thinking
                : '';
        if (text !== '') rest.push(text);
      }
    }
    if (restBlocks > 0) sink.message(thread, { role: 'user', content: rest.join('\n\n'), ...at });
  };

  const mapper: LineMapper = {
    line(value, lineNo) {
      const parsed = ClaudeEntrySchema.safeParse(value);
      if (!parsed.success) {
        flush();
        sink.skip(
          lineNo,
          `not a Claude Code entry (${parsed.error.issues[0]?.message ?? 'unexpected shape'})`,
        );
        return;
      }
      const entry = parsed.data;
      if (entry.type === 'summary') {
        if (entry.summary !== undefined) sink.describe(MAIN, { title: entry.summary });
        return;
      }
      if (entry.type === 'system' && entry.subtype === 'compact_boundary') {
        state.boundary = {
          ...(entry.compactMetadata?.trigger !== undefined && {
            trigger: entry.compactMetadata.trigger,
          }),
          ...(entry.compactMetadata?.preTokens !== undefined && {
            preTokens: entry.compactMetadata.preTokens,
          }),
        };
        return;
      }
      if (entry.type !== 'user' && entry.type !== 'assistant') return; // system notices, snapshots
      const thread = route(entry, lineNo);
      describe(sink, thread, entry, state);
      if (entry.type === 'assistant') assistant(thread, entry, lineNo);
      else {
        flush();
        user(thread, entry);
      }
    },
    end() {
      flush();
      // Calls still waiting are kept for the next batch, their arguments cut.
      for (const [id, call] of live) {
        const json = JSON.stringify(call.args) ?? '';
        state.calls[id] = {
          ...call,
          args:
            json.length > SAVED_ARGS_CHARS ? { clipped: clip(json, SAVED_ARGS_CHARS) } : call.args,
        };
      }
      live.clear();
    },
    save: () => state,
  };
  return mapper;
};

function describe(sink: SyncSink, thread: string, entry: ClaudeEntry, state: State): void {
  const timestamp = normalizeTimestamp(entry.timestamp);
  const prompt =
    entry.type === 'user' && entry.isMeta !== true && entry.isCompactSummary !== true
      ? promptOf(entry)
      : undefined;
  const request = prompt !== undefined ? realRequest(prompt) : undefined;
  const model = entry.type === 'assistant' ? entry.message?.model : undefined;
  if (thread === MAIN && entry.type === 'assistant') rememberTaskCalls(entry, state);
  const description =
    thread !== MAIN && prompt !== undefined ? state.taskCalls?.[promptHash(prompt)] : undefined;
  sink.describe(thread, {
    ...(description !== undefined && { description }),
    ...(timestamp !== undefined && { firstTimestamp: timestamp, lastTimestamp: timestamp }),
    ...(entry.cwd !== undefined && { workdir: entry.cwd }),
    ...(entry.sessionId !== undefined && { sessionId: entry.sessionId }),
    ...(entry.gitBranch && { gitBranch: entry.gitBranch }),
    ...(entry.version !== undefined && { version: entry.version }),
    ...(entry.agentId !== undefined && { agentId: entry.agentId }),
    ...(model !== undefined && model !== '<synthetic>' && { model }),
    ...(prompt !== undefined && { prompt }),
    ...(request !== undefined && { request }),
  });
}

function rememberTaskCalls(entry: ClaudeEntry, state: State): void {
  for (const block of blocksOf(entry.message?.content)) {
    if (block.type !== 'tool_use' || (block.name !== 'Task' && block.name !== 'Agent')) continue;
    const input = block.input;
    if (!isRecord(input) || typeof input.prompt !== 'string') continue;
    if (typeof input.description === 'string')
      (state.taskCalls ??= {})[promptHash(input.prompt)] = input.description;
  }
}

function promptHash(text: string): string {
  return crypto.createHash('sha256').update(text.trim()).digest('hex').slice(0, 16);
}

function promptOf(entry: ClaudeEntry): string | undefined {
  const blocks = blocksOf(entry.message?.content);
  if (blocks.length === 0 || blocks.some((b) => b.type === 'tool_result')) return undefined;
  const text = contentText(entry.message?.content);
  return text.trim() === '' ? undefined : text;
}

function toUsage(u: ClaudeUsage): TokenUsage {
  return usageWithTotal({
    input_tokens: asNumber(u.input_tokens),
    output_tokens: asNumber(u.output_tokens),
    cache_creation_tokens: asNumber(u.cache_creation_input_tokens),
    cache_read_tokens: asNumber(u.cache_read_input_tokens),
  });
}

function isState(value: unknown): value is State {
  return (
    typeof value === 'object' &&
    value !== null &&
    'router' in value &&
    'calls' in value &&
    'lastResponse' in value
  );
}
