import type { ToolCall, TokenUsage } from '../../shared/task-types';
import {
  parseClaudeEntry,
  ClaudeThreadRouter,
  MAIN_THREAD,
  blocksOf,
  isQueuedPrompt,
  normalizeWorkdir,
  forkedThreadReason,
  promptHash,
  promptOf,
  queuedPromptText,
  titleOf,
  type ClaudeEntry,
  type ClaudeUsage,
} from './claude-code-entry';
import { spilledOutput, subagentMeta, type SubagentMeta } from './claude-code-files';
import { realRequest } from './session-meta';
import { asNumber, clip, contentText, isRecord, normalizeTimestamp } from './text';
import type { EntryMapper, EntryRef, ThreadInfo, TranscriptSink } from './transcript-sink';
import {
  answeredCall,
  unansweredCall,
  usageWithTotal,
  type ToolCallStart,
} from './transcript-writer';
import { REASONING_NAME } from './types';
import type { NewMessage } from '../store/message-store';
import { reattachedText, type CompactionRun } from './claude-code-compaction';

/**
 * Claude Code sessions, entry by entry: the one mapping of `cwb import` (claude-code.ts) and
 * live sync (src/core/sources). Per thread (the main conversation, each subagent), in file
 * order:
 *
 * - `assistant` entries: Claude Code writes one entry per content block, all with the same
 *   `message.id`; consecutive entries with one id are one model response and become ONE
 *   assistant message — text blocks joined by a blank line, `tool_use` blocks as its
 *   `tool_calls` (id, name, JSON arguments). A response ends at an entry with another id, a
 *   user or compaction entry of its thread, an entry with a `stop_reason`, or the end. Each
 *   response id (not `<synthetic>`) is one LLM call whose usage is its last entry's. A
 *   response a live sync had to end early (its file was still for a while) and that goes on
 *   later is a second message of the same call: only the growth of its usage is added.
 * - `thinking` blocks: one assistant message each, `name: "reasoning"`, kept in
 *   messages.jsonl only (history-only: the model is not shown old reasoning as text), in
 *   front of the response's message. `redacted_thinking` becomes "[redacted thinking]".
 * - `user` entries: each `tool_result` block becomes a `tool` message with its
 *   `tool_call_id` and one tools.jsonl record paired with the call; the other blocks (text,
 *   images as "[image]") become one user message. A string content is one user message.
 *   Meta entries (expanded slash commands) are kept: the model saw them.
 * - Compaction: a `compact_boundary` system entry, the `isCompactSummary` user entry after
 *   it and the `attachment` entries Claude Code re-attaches before the next reply (files,
 *   file references, the plan, hook context) are ONE compaction: its new context (the
 *   summary as a user message of kind `summary`, each attachment as a user message) and a
 *   record with a plan (agent-compaction.ts), trigger, preTokens and the model and usage of
 *   its `agent-acompact-*` run. Held back until the thread goes on. A boundary without a
 *   summary, or a summary without a boundary, is recorded as it is with a note. Messages
 *   before the thread's last compaction are history-only (import knows the line from its
 *   scan; live sync marks them when the compaction arrives).
 * - Compaction runs and side questions (agent-acompact-*, agent-aside_question-*): ignored
 *   with their reason, never a thread of their own.
 * - Calls without a result at the end (or when a live file has been still) are recorded
 *   as failed; a result that comes after all is written as its message, not recorded twice.
 * - Other `system` entries are notices for the terminal, not model context: ignored.
 *
 * Live sync holds back each thread's response being assembled (`end(false)`): its entries
 * are read again by the next batch, so a response whose entries straddle two syncs is still
 * one message.
 */
export interface ClaudeMapperOptions {
  /** Import: a thread's messages before this line are history-only (its last compaction). */
  historyBefore?: (thread: string) => number;
  /** The session file: the files Claude Code keeps beside it are read (claude-code-files.ts). */
  file?: string;
  /** The compaction's own summary call (its `agent-acompact-*` run), by the boundary's time. */
  compactionRun?: (at: string | undefined) => CompactionRun | undefined;
}

/**
 * A compaction being read: its boundary, its summary and what Claude Code re-attached after
 * it. Held back (its entries read again by the next sync) until the thread goes on.
 */
interface Compacting {
  boundary?: {
    trigger?: string;
    preTokens?: number;
    logicalParentUuid?: string;
    timestamp?: string;
  };
  summary?: { text: string; timestamp?: string; historyOnly: boolean };
  reattached: NewMessage[];
  refs: EntryRef[];
}

interface PendingCall {
  thread: string;
  name: string;
  args: unknown;
  timestamp?: string;
}

/** The mapper's saved state: plain JSON. */
interface ClaudeState {
  /** Sidechain entry uuid → thread (only sidechains: about 100 bytes each). */
  router: Record<string, string>;
  /** The main thread's Task/Agent calls: prompt hash → description (titles the subagent). */
  taskCalls?: Record<string, string>;
  /** Calls of written responses waiting for their result, by id. */
  calls: Record<string, PendingCall>;
  /** The last response written per thread and the usage counted for it. */
  responses: Record<string, { key: string; usage: TokenUsage | null }>;
  /** Saved before compactions were held back: a boundary waiting for its summary, per thread. */
  boundaries?: Record<string, { trigger?: string; preTokens?: number }>;
  /** Calls recorded without a result at a quiet end: id → tool name. */
  closed?: Record<string, string>;
  /** The rank of the title given (1 Claude's ai-title, 2 the person's /rename): lower ones no longer replace it. */
  titleRank?: number;
  /** Each thread's first model (its task's model): a reply by another one (`/model`) names it. */
  models?: Record<string, string>;
}

interface Group {
  thread: string;
  key: string;
  line: number;
  timestamp?: string;
  model?: string;
  usage?: ClaudeUsage;
  reasoning: { text: string; timestamp?: string }[];
  texts: string[];
  toolCalls: ToolCall[];
  starts: ToolCallStart[];
  refs: EntryRef[];
}

/** A call's arguments kept across syncs while it waits for its result are cut past this. */
const SAVED_ARGS_CHARS = 256 * 1024;
/** Calls closed without a result remembered (their late result must not be recorded again). */
const MAX_CLOSED = 200;

export class ClaudeCodeMapper implements EntryMapper {
  private readonly state: ClaudeState;
  private readonly router: ClaudeThreadRouter;
  private readonly groups = new Map<string, Group>();
  /** A subagent file's own description (`<agent>.meta.json`). */
  private readonly meta: SubagentMeta | undefined;
  private readonly compacting = new Map<string, Compacting>();
  /** Per thread, the fields describe gave the sink in this run (it keeps the first of each). */
  private readonly given = new Map<string, Set<keyof ThreadInfo>>();

  constructor(
    saved: unknown,
    private readonly sink: TranscriptSink,
    private readonly options: ClaudeMapperOptions = {},
  ) {
    this.state = stateOf(saved);
    this.router = new ClaudeThreadRouter(this.state.router);
    this.meta = subagentMeta(options.file);
    for (const [thread, boundary] of Object.entries(this.state.boundaries ?? {}))
      this.compacting.set(thread, { boundary, reattached: [], refs: [] });
    delete this.state.boundaries;
  }

  line(value: unknown, lineNo: number, ref?: EntryRef): void {
    const parsed = parseClaudeEntry(value);
    if (!parsed.ok) {
      this.sink.skip(lineNo, parsed.error);
      return;
    }
    this.entry(parsed.entry, lineNo, ref);
  }

  entry(entry: ClaudeEntry, lineNo: number, ref?: EntryRef): void {
    if (entry.type === 'summary') {
      // Claude Code's short title of the conversation, not a compaction.
      if (entry.summary !== undefined && (this.state.titleRank ?? 0) === 0)
        this.sink.describe(MAIN_THREAD, { title: entry.summary });
      return;
    }
    const titled = titleOf(entry);
    if (titled !== undefined) {
      // Written again on every turn and on resume: the last of the highest rank holds.
      if (titled.rank < (this.state.titleRank ?? 0)) return;
      this.state.titleRank = titled.rank;
      this.sink.describe(MAIN_THREAD, { title: titled.title });
      return;
    }
    if (entry.type === 'attachment' && this.reattach(entry, ref)) return;
    const thread = this.router.route(entry, lineNo);
    if (thread === undefined)
      return this.sink.ignore(
        entry.type === 'attachment'
          ? `attachment:${entry.attachment?.type ?? 'unknown'}`
          : entry.type,
      );
    const forked = forkedThreadReason(thread);
    if (forked !== undefined) return this.sink.ignore(forked);
    // Every entry of a thread dates it, as the import's scan (claude-code-scan.ts) does.
    this.describe(thread, entry);
    if (isQueuedPrompt(entry)) {
      this.flush(thread);
      this.closeCompaction(thread);
      const timestamp = normalizeTimestamp(entry.timestamp);
      this.sink.message(thread, {
        role: 'user',
        content: queuedPromptText(entry),
        ...(timestamp !== undefined && { timestamp }),
        ...(this.historyOnly(thread, lineNo) && { historyOnly: true }),
      });
    } else if (entry.type === 'assistant') {
      this.assistant(thread, entry, lineNo, ref);
    } else if (entry.type === 'user') {
      this.flush(thread);
      if (entry.isCompactSummary === true) this.compactSummary(thread, entry, lineNo, ref);
      else {
        this.closeCompaction(thread);
        this.user(thread, entry, lineNo);
      }
    } else if (entry.subtype === 'compact_boundary') {
      this.flush(thread);
      // Two compactions with nothing between them: the first is recorded as it is.
      this.closeCompaction(thread);
      const meta = entry.compactMetadata;
      const logical = isRecord(entry) ? entry.logicalParentUuid : undefined;
      const timestamp = normalizeTimestamp(entry.timestamp);
      this.compacting.set(thread, {
        boundary: {
          ...(meta?.trigger !== undefined && { trigger: meta.trigger }),
          ...(meta?.preTokens !== undefined && { preTokens: meta.preTokens }),
          ...(typeof logical === 'string' && { logicalParentUuid: logical }),
          ...(timestamp !== undefined && { timestamp }),
        },
        reattached: [],
        refs: ref ? [ref] : [],
      });
    } else this.sink.ignore(entry.subtype ? `${entry.type}:${entry.subtype}` : entry.type);
  }

  /** The thread has no more entries (import): its response is written, open calls recorded. */
  endThread(thread: string): void {
    this.flush(thread);
    this.closeCompaction(thread);
    this.closeCalls((call) => call.thread === thread);
  }

  end(final: boolean): { held: EntryRef[]; waiting: boolean } {
    if (final) {
      for (const thread of [...this.groups.keys()]) this.flush(thread);
      for (const thread of [...this.compacting.keys()]) this.closeCompaction(thread);
      this.closeCalls(() => true);
      return { held: [], waiting: false };
    }
    // A boundary kept from an earlier version's state has no entries to read again.
    for (const [thread, c] of this.compacting)
      if (c.refs.length === 0) this.closeCompaction(thread);
    const held = [...this.groups.values(), ...this.compacting.values()]
      .flatMap((g) => g.refs)
      .sort((a, b) => a.lineNo - b.lineNo);
    for (const call of Object.values(this.state.calls)) {
      const json = JSON.stringify(call.args) ?? '';
      if (json.length > SAVED_ARGS_CHARS) call.args = { clipped: clip(json, SAVED_ARGS_CHARS) };
    }
    return { held, waiting: held.length > 0 || Object.keys(this.state.calls).length > 0 };
  }

  save(): unknown {
    return this.state;
  }

  private historyOnly(thread: string, line: number): boolean {
    return line < (this.options.historyBefore?.(thread) ?? 0);
  }

  private assistant(thread: string, entry: ClaudeEntry, line: number, ref?: EntryRef): void {
    const message = entry.message;
    const key = message?.id ?? entry.requestId ?? entry.uuid ?? `line-${line}`;
    if (this.groups.get(thread)?.key !== key) this.flush(thread);
    const timestamp = normalizeTimestamp(entry.timestamp);
    let group = this.groups.get(thread);
    if (!group) {
      this.closeCompaction(thread);
      group = {
        thread,
        key,
        line,
        reasoning: [],
        texts: [],
        toolCalls: [],
        starts: [],
        refs: [],
        ...(timestamp !== undefined && { timestamp }),
      };
      this.groups.set(thread, group);
    }
    const g = group;
    if (ref) g.refs.push(ref);
    if (message?.model !== undefined) g.model = message.model;
    if (message?.usage !== undefined) g.usage = message.usage;
    blocksOf(message?.content).forEach((block, i) => {
      const at = timestamp !== undefined ? { timestamp } : {};
      if (block.type === 'text') g.texts.push(block.text);
      else if (block.type === 'thinking') g.reasoning.push({ text: block.thinking, ...at });
      else if (block.type === 'redacted_thinking')
        g.reasoning.push({ text: '[redacted thinking]', ...at });
      else if (block.type === 'tool_use') {
        const id = block.id ?? `toolu_line${line}_${i}`;
        g.toolCalls.push({
          id,
          type: 'function',
          function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
        });
        g.starts.push({ id, name: block.name, args: block.input ?? {}, ...at });
      } else
        this.sink.ignore(`assistant block:${block.type === 'other' ? block.kind : block.type}`);
    });
    // The last entry of a response carries why it stopped: nothing of it is still to come.
    const stop = isRecord(message) ? message.stop_reason : undefined;
    if (typeof stop === 'string' && stop !== '') this.flush(thread);
  }

  private flush(thread: string): void {
    const g = this.groups.get(thread);
    if (!g) return;
    this.groups.delete(thread);
    const historyOnly = this.historyOnly(thread, g.line);
    const model = this.replyModel(thread, g.model);
    for (const r of g.reasoning) {
      this.sink.message(thread, {
        role: 'assistant',
        content: r.text,
        name: REASONING_NAME,
        historyOnly: true,
        ...(r.timestamp !== undefined && { timestamp: r.timestamp }),
        ...model,
      });
    }
    let usage: TokenUsage | undefined;
    if (g.model !== '<synthetic>') {
      const counted = g.usage ? toUsage(g.usage) : undefined;
      const last = this.state.responses[thread];
      if (last?.key !== g.key) {
        usage = counted;
        this.state.responses[thread] = { key: g.key, usage: counted ?? null };
        this.sink.llmCall(thread, counted);
      } else if (counted) {
        // The same response, written in two parts: its usage only grew.
        const delta: Partial<TokenUsage> = {};
        let changed = false;
        for (const field of Object.keys(counted) as (keyof TokenUsage)[]) {
          delta[field] = counted[field] - (last.usage?.[field] ?? 0);
          if (delta[field] !== 0) changed = true;
        }
        last.usage = counted;
        if (changed) this.sink.llmCall(thread, delta, 0);
      }
    }
    if (g.texts.length === 0 && g.toolCalls.length === 0) return;
    this.sink.message(thread, {
      role: 'assistant',
      content: g.texts.length > 0 ? g.texts.join('\n\n') : null,
      ...(g.toolCalls.length > 0 && { tool_calls: g.toolCalls }),
      ...(usage !== undefined && { usage }),
      ...(g.timestamp !== undefined && { timestamp: g.timestamp }),
      ...(historyOnly && { historyOnly }),
      ...model,
    });
    for (const { id, ...call } of g.starts) this.state.calls[id] = { thread, ...call };
  }

  /** A reply by another model than its thread's first (the task's model) names it. */
  private replyModel(thread: string, model: string | undefined): { model?: string } {
    if (model === undefined || model === '<synthetic>') return {};
    const first = ((this.state.models ??= {})[thread] ??= model);
    return model !== first ? { model } : {};
  }

  private user(thread: string, entry: ClaudeEntry, line: number): void {
    const timestamp = normalizeTimestamp(entry.timestamp);
    const historyOnly = this.historyOnly(thread, line);
    const at = {
      ...(timestamp !== undefined && { timestamp }),
      ...(historyOnly && { historyOnly }),
    };
    const content = entry.message?.content;
    if (typeof content === 'string') {
      this.sink.message(thread, { role: 'user', content, ...at });
      return;
    }
    const rest: string[] = [];
    let restBlocks = 0;
    for (const block of blocksOf(content)) {
      if (block.type === 'tool_result') {
        const text = contentText(block.content);
        // The model saw a preview; the record keeps the full output Claude Code saved.
        const output = spilledOutput(text, this.options.file) ?? text;
        const id = block.tool_use_id;
        const call = this.takeCall(id, thread);
        const closed = call === undefined ? this.state.closed?.[id] : undefined;
        const name = call?.name ?? closed;
        if (closed !== undefined) delete this.state.closed![id];
        // A call already recorded without a result (the file was still): not recorded twice.
        else
          this.sink.tool(
            thread,
            answeredCall(call && { id, ...call }, {
              id,
              content: output,
              isError: block.is_error,
              ...(timestamp !== undefined && { timestamp }),
            }),
          );
        this.sink.message(thread, {
          role: 'tool',
          content: text,
          tool_call_id: id,
          ...(name !== undefined && { tool_name: name }),
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
    if (restBlocks > 0)
      this.sink.message(thread, { role: 'user', content: rest.join('\n\n'), ...at });
  }

  private takeCall(id: string, thread: string): PendingCall | undefined {
    const call = this.state.calls[id];
    if (call?.thread !== thread) return undefined;
    delete this.state.calls[id];
    return call;
  }

  /** Calls still without a result are recorded as such, and remembered as closed. */
  private closeCalls(which: (call: PendingCall) => boolean): void {
    for (const [id, call] of Object.entries(this.state.calls)) {
      if (!which(call)) continue;
      delete this.state.calls[id];
      this.sink.tool(call.thread, unansweredCall({ id, ...call }));
      const closed = (this.state.closed ??= {});
      closed[id] = call.name;
      const ids = Object.keys(closed);
      if (ids.length > MAX_CLOSED) delete closed[ids[0]!];
    }
  }

  /** The summary Claude Code wrote after a boundary (or, in a damaged file, without one). */
  private compactSummary(thread: string, entry: ClaudeEntry, line: number, ref?: EntryRef): void {
    let c = this.compacting.get(thread);
    if (c?.summary !== undefined || c?.boundary === undefined) {
      this.closeCompaction(thread);
      c = { reattached: [], refs: [] };
      this.compacting.set(thread, c);
    }
    if (ref) c.refs.push(ref);
    const timestamp = normalizeTimestamp(entry.timestamp);
    c.summary = {
      text: contentText(entry.message?.content),
      historyOnly: this.historyOnly(thread, line),
      ...(timestamp !== undefined && { timestamp }),
    };
  }

  /** An attachment entry after a compaction is part of the new context; false: not one. */
  private reattach(entry: ClaudeEntry, ref?: EntryRef): boolean {
    const thread =
      entry.isSidechain === true
        ? entry.agentId !== undefined
          ? `agent:${entry.agentId}`
          : this.state.router[entry.parentUuid ?? '']
        : MAIN_THREAD;
    const c = thread !== undefined ? this.compacting.get(thread) : undefined;
    // A prompt queued meanwhile is the person's next turn, not re-attached context.
    if (!c || isQueuedPrompt(entry)) return false;
    const text = reattachedText(entry.attachment);
    if (text === undefined) return false;
    if (ref) c.refs.push(ref);
    const timestamp = normalizeTimestamp(entry.timestamp);
    c.reattached.push({
      role: 'user',
      content: text,
      ...(timestamp !== undefined && { timestamp }),
    });
    return true;
  }

  /**
   * The compaction is complete (the thread goes on, or the file ends): one record whose new
   * context is the summary and what was re-attached. A boundary without a summary, or a
   * summary without a boundary, is recorded as it is, with a note.
   */
  private closeCompaction(thread: string): void {
    const c = this.compacting.get(thread);
    if (!c) return;
    this.compacting.delete(thread);
    const { boundary, summary } = c;
    const note = !boundary
      ? 'summary entry without a compact boundary before it'
      : !summary
        ? 'compact boundary without a summary entry'
        : undefined;
    const at = boundary?.timestamp ?? summary?.timestamp;
    const run = thread === MAIN_THREAD ? this.options.compactionRun?.(at) : undefined;
    const messages: NewMessage[] = [
      ...(summary
        ? [
            {
              role: 'user' as const,
              content: summary.text,
              kind: 'summary' as const,
              ...(summary.timestamp !== undefined && { timestamp: summary.timestamp }),
              ...(summary.historyOnly && { historyOnly: true }),
            },
          ]
        : []),
      ...c.reattached,
    ];
    this.sink.compaction(thread, {
      strategy: 'claude-code-compact',
      summary: summary?.text ?? '',
      messages,
      ...(at !== undefined && { at }),
      ...(boundary?.preTokens !== undefined && { agentTokensBefore: boundary.preTokens }),
      ...(run?.usage !== undefined && { llmUsage: run.usage }),
      ...(run?.model !== undefined && { model: run.model }),
      extra: {
        source_format: 'claude-code',
        ...(note !== undefined && { note }),
        ...(boundary?.trigger !== undefined && { trigger: boundary.trigger }),
        ...(boundary?.preTokens !== undefined && { pre_tokens: boundary.preTokens }),
        ...(boundary?.logicalParentUuid !== undefined && {
          logical_parent_uuid: boundary.logicalParentUuid,
        }),
        ...(c.reattached.length > 0 && { reattached: c.reattached.length }),
        ...(run && {
          compaction_run: {
            file: run.file,
            ...(run.agentId !== undefined && { agent_id: run.agentId }),
          },
        }),
      },
    });
  }

  /**
   * What the entry says about its thread (live sync keeps the task's row up to date). The
   * sink keeps the first value of each field but the last timestamp (TranscriptSink.describe),
   * so a field already given is neither worked out nor given again: this ran for every entry
   * of a session, ~5 % of a first sync.
   */
  private describe(thread: string, entry: ClaudeEntry): void {
    if (thread === MAIN_THREAD && entry.type === 'assistant') this.rememberTaskCalls(entry);
    let given = this.given.get(thread);
    if (!given) this.given.set(thread, (given = new Set()));
    const info: ThreadInfo = {};
    const timestamp = normalizeTimestamp(entry.timestamp);
    if (timestamp !== undefined) {
      info.lastTimestamp = timestamp;
      if (!given.has('firstTimestamp')) info.firstTimestamp = timestamp;
    }
    const wantsDescription = thread !== MAIN_THREAD && !given.has('description');
    if (!given.has('prompt') || !given.has('request') || wantsDescription) {
      const prompt = promptOf(entry);
      if (prompt !== undefined && !given.has('prompt')) info.prompt = prompt;
      if (prompt !== undefined && !given.has('request')) {
        const request = realRequest(prompt);
        if (request !== undefined) info.request = request;
      }
      const description = wantsDescription
        ? ((prompt !== undefined
            ? this.state.taskCalls?.[promptHash(prompt).slice(0, 16)]
            : undefined) ?? this.meta?.description)
        : undefined;
      if (description !== undefined) info.description = description;
    }
    if (!given.has('workdir')) {
      const workdir = normalizeWorkdir(entry.cwd);
      if (workdir !== undefined) info.workdir = workdir;
    }
    if (entry.sessionId !== undefined && !given.has('sessionId')) info.sessionId = entry.sessionId;
    if (entry.gitBranch && !given.has('gitBranch')) info.gitBranch = entry.gitBranch;
    if (entry.version !== undefined && !given.has('version')) info.version = entry.version;
    if (entry.agentId !== undefined && !given.has('agentId')) info.agentId = entry.agentId;
    if (entry.type === 'assistant' && !given.has('model')) {
      const model = entry.message?.model;
      if (model !== undefined && model !== '<synthetic>') info.model = model;
    }
    this.sink.describe(thread, info);
    for (const field in info) if (field !== 'lastTimestamp') given.add(field as keyof ThreadInfo);
  }

  private rememberTaskCalls(entry: ClaudeEntry): void {
    for (const block of blocksOf(entry.message?.content)) {
      if (block.type !== 'tool_use' || (block.name !== 'Task' && block.name !== 'Agent')) continue;
      const input = block.input;
      if (!isRecord(input) || typeof input.prompt !== 'string') continue;
      if (typeof input.description === 'string')
        (this.state.taskCalls ??= {})[promptHash(input.prompt).slice(0, 16)] = input.description;
    }
  }
}

/** Anthropic usage: input_tokens excludes cache reads and writes, so the total adds all four. */
function toUsage(u: ClaudeUsage): TokenUsage {
  return usageWithTotal({
    input_tokens: asNumber(u.input_tokens),
    output_tokens: asNumber(u.output_tokens),
    cache_creation_tokens: asNumber(u.cache_creation_input_tokens),
    cache_read_tokens: asNumber(u.cache_read_input_tokens),
  });
}

/** What a sync saved: this state, or the one live sync kept before the mapping was shared. */
function stateOf(saved: unknown): ClaudeState {
  if (!isRecord(saved) || !isRecord(saved.router) || !isRecord(saved.calls))
    return { router: {}, calls: {}, responses: {} };
  if (isRecord(saved.responses)) return saved as unknown as ClaudeState;
  // Earlier live state: calls without their thread (the main one, nearly always), one
  // boundary for the file, the last response per thread apart from its usage.
  const old = saved as {
    router: Record<string, string>;
    taskCalls?: Record<string, string>;
    calls: Record<string, Omit<PendingCall, 'thread'>>;
    lastResponse?: Record<string, string>;
    responseUsage?: Record<string, TokenUsage | null>;
    boundary?: { trigger?: string; preTokens?: number };
  };
  return {
    router: old.router,
    ...(old.taskCalls && { taskCalls: old.taskCalls }),
    calls: Object.fromEntries(
      Object.entries(old.calls).map(([id, call]) => [id, { thread: MAIN_THREAD, ...call }]),
    ),
    responses: Object.fromEntries(
      Object.entries(old.lastResponse ?? {}).map(([thread, key]) => [
        thread,
        { key, usage: old.responseUsage?.[thread] ?? null },
      ]),
    ),
    ...(old.boundary && { boundaries: { [MAIN_THREAD]: old.boundary } }),
  };
}
