import type { ToolCall, TokenUsage } from '../../shared/task-types';
import {
  codexCallId,
  codexInstructions,
  codexSubagent,
  codexMessageText,
  toCodexLine,
  type CodexLine,
} from './codex-line';
import { userRequest } from './codex-scan';
import { realRequest } from './session-meta';
import {
  argumentsString,
  argumentsValue,
  asNumber,
  asString,
  clip,
  contentText,
  isRecord,
  normalizeTimestamp,
} from './text';
import { MAIN, type EntryMapper, type EntryRef, type TranscriptSink } from './transcript-sink';
import { answeredCall, unansweredCall, type ToolCallStart } from './transcript-writer';
import { REASONING_NAME } from './types';
import type { NewMessage } from '../store/message-store';

/**
 * Codex rollouts, line by line: the one mapping of `cwb import` (codex.ts) and live sync
 * (src/core/sources).
 *
 * - `session_meta`: its base instructions become the first message (system; it stays in the
 *   context whatever Codex compacts later). `turn_context` gives the model.
 * - `response_item` message: user → user, developer/system → system, assistant →
 *   assistant. Codex records every user turn twice (a `user` message item and a
 *   `user_message` event); the items are used when the file has any, else the events.
 * - `function_call` / `custom_tool_call` / `local_shell_call` items become tool_calls of
 *   an assistant message: calls that follow each other (or an assistant text) without
 *   another item in between are ONE message, as the model sent them together. MCP calls
 *   are named `namespace + name`. Outputs become tool messages, paired by call_id, and each
 *   pair one tools.jsonl record. `web_search_call` is a tools.jsonl record only.
 * - `reasoning` items: an assistant message `name: "reasoning"`, history only, holding the
 *   summary text (or "[encrypted reasoning, N characters]").
 * - `compacted` entries: one summaries.jsonl record for the messages since the previous
 *   one; then the `replacement_history` messages (what Codex kept, the summary among them,
 *   marked kind `summary`), or a user message of kind `summary` holding `message`. Earlier
 *   messages are history only (import knows the line from its scan; live sync marks them
 *   when the entry arrives).
 * - `event_msg` token_count: each event is one LLM call, its usage what the cumulative
 *   total grew by; without any such event, every run of model items between user turns and
 *   tool outputs counts as one call. Other events repeat items or are UI notices: ignored.
 *
 * Live sync holds back the assistant message being assembled (`end(false)`): a text and the
 * calls that follow it in the next sync are still one message.
 */
export interface CodexMapperOptions {
  /** Import (its scan): the file has `user` message items, so the events are not turns. */
  userItems?: boolean;
  /** Import (its scan): the file has token_count events, so they count the LLM calls. */
  tokenCounts?: boolean;
  /** Import (its scan): messages before this line are history-only (the last compaction). */
  historyBefore?: number;
}

interface CodexState {
  /** Calls of written messages waiting for their output, by id. */
  calls: Record<string, Omit<ToolCallStart, 'id'>>;
  /** A `user` response item was seen: user turns come from items, not the repeated events. */
  userItems: boolean;
  /** `token_count` events were seen: they count the LLM calls. */
  tokenCounts?: boolean;
  /** Within a run of model items (reasoning, assistant text, calls) since the last user turn or output. */
  inModelRun?: boolean;
  /** The instructions were written (the first session_meta). */
  instructed?: boolean;
  /**
   * Between a forked thread's second session_meta (its parent's) and its first turn_context:
   * the parent's history copied in, which the subagent's model reads but which is not what the
   * subagent was asked (not its prompt).
   */
  forkHistory?: boolean;
  /** The last cumulative usage a token_count event reported. */
  total?: TokenUsage;
  /** Calls recorded without a result at a quiet end: id → tool name. */
  closed?: Record<string, string>;
  /**
   * A `compacted` item was the last thing recorded: the `context_compacted` event Codex writes
   * right after it is the same compaction, not another one.
   */
  compactedItem?: boolean;
  /** The model of the first turn: the task's model. */
  taskModel?: string;
  /** The model of the current turn (`turn_context`): a reply by another one names it. */
  model?: string;
}

interface PendingMessage {
  text: string | null;
  toolCalls: ToolCall[];
  starts: ToolCallStart[];
  timestamp?: string;
  line: number;
  refs: EntryRef[];
  /** The model of the turn the reply began in (it is flushed when the next item comes). */
  model?: string;
}

/** A call's arguments kept across syncs while it waits for its output are cut past this. */
const SAVED_ARGS_CHARS = 256 * 1024;
const MAX_CLOSED = 200;
const NO_USAGE: TokenUsage = {
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_tokens: 0,
  cache_read_tokens: 0,
  total_tokens: 0,
};

type At = { timestamp?: string; historyOnly?: true };

export class CodexMapper implements EntryMapper {
  private readonly state: CodexState;
  private pending: PendingMessage | undefined;

  constructor(
    saved: unknown,
    private readonly sink: TranscriptSink,
    private readonly options: CodexMapperOptions = {},
  ) {
    this.state =
      isRecord(saved) && isRecord(saved.calls) && 'userItems' in saved
        ? (saved as unknown as CodexState)
        : { calls: {}, userItems: false };
  }

  line(value: unknown, lineNo: number, ref?: EntryRef): void {
    const line = toCodexLine(value, lineNo);
    if (line === undefined) return this.sink.skip(lineNo, 'not a Codex rollout line');
    if (line.kind === 'other') return this.sink.ignore(line.type);
    const p = line.payload;
    const at: At = {
      ...(line.timestamp !== undefined && { timestamp: line.timestamp }),
      ...(lineNo < (this.options.historyBefore ?? 0) && { historyOnly: true }),
    };
    // The session started before its first line was written (as the importer's scan).
    const started = line.kind === 'session_meta' ? normalizeTimestamp(p.timestamp) : undefined;
    if (started !== undefined) this.sink.describe(MAIN, { firstTimestamp: started });
    if (line.timestamp !== undefined)
      this.sink.describe(MAIN, { firstTimestamp: line.timestamp, lastTimestamp: line.timestamp });
    if (line.kind === 'session_meta') return this.sessionMeta(p, line, started);
    if (line.kind === 'turn_context') {
      delete this.state.forkHistory;
      const model = asString(p.model);
      if (model !== undefined) {
        this.state.taskModel ??= model;
        this.state.model = model;
      }
      this.sink.describe(MAIN, {
        ...(asString(p.model) !== undefined && { model: asString(p.model)! }),
        ...(asString(p.cwd) !== undefined && { workdir: asString(p.cwd)! }),
      });
      return;
    }
    if (line.kind === 'compacted') return this.compacted(p, at);
    if (line.kind === 'event_msg') return this.event(p, at);
    delete this.state.compactedItem;
    this.item(p, at, lineNo, ref);
  }

  end(final: boolean): { held: EntryRef[]; waiting: boolean } {
    if (final) {
      this.flush();
      for (const [id, call] of Object.entries(this.state.calls)) {
        delete this.state.calls[id];
        this.sink.tool(MAIN, unansweredCall({ id, ...call }));
        const closed = (this.state.closed ??= {});
        closed[id] = call.name;
        const ids = Object.keys(closed);
        if (ids.length > MAX_CLOSED) delete closed[ids[0]!];
      }
      return { held: [], waiting: false };
    }
    for (const call of Object.values(this.state.calls)) {
      const json = JSON.stringify(call.args) ?? '';
      if (json.length > SAVED_ARGS_CHARS) call.args = { clipped: clip(json, SAVED_ARGS_CHARS) };
    }
    const held = this.pending?.refs ?? [];
    return { held, waiting: held.length > 0 || Object.keys(this.state.calls).length > 0 };
  }

  save(): unknown {
    return this.state;
  }

  private sessionMeta(
    p: Record<string, unknown>,
    line: CodexLine & { kind: 'session_meta' },
    started: string | undefined,
  ): void {
    const git = isRecord(p.git) ? p.git : undefined;
    // Only the first session_meta is this thread's (a subagent's second one is its parent's).
    const subagent = this.state.instructed ? undefined : codexSubagent(p);
    this.sink.describe(MAIN, {
      ...(subagent && { parentSessionId: subagent.parent }),
      ...(subagent?.label !== undefined && { description: subagent.label }),
      ...(asString(git?.repository_url) !== undefined && {
        gitRemote: asString(git?.repository_url)!,
      }),
      ...(asString(git?.branch) !== undefined && { gitBranch: asString(git?.branch)! }),
      ...(asString(p.id) !== undefined && { sessionId: asString(p.id)! }),
      ...(asString(p.cwd) !== undefined && { workdir: asString(p.cwd)! }),
      ...(asString(p.model) !== undefined && { model: asString(p.model)! }),
      ...(asString(p.cli_version) !== undefined && { version: asString(p.cli_version)! }),
    });
    if (this.state.instructed) {
      this.state.forkHistory = true;
      return;
    }
    this.state.instructed = true;
    this.state.taskModel ??= asString(p.model);
    this.state.model ??= this.state.taskModel;
    const instructions = codexInstructions(p);
    const timestamp = started ?? line.timestamp;
    // The system prompt survives compaction: never history-only.
    if (instructions)
      this.sink.message(
        MAIN,
        {
          role: 'system',
          content: instructions,
          ...(timestamp !== undefined && { timestamp }),
        },
        { pinned: true },
      );
  }

  private event(p: Record<string, unknown>, at: At): void {
    const type = asString(p.type) ?? 'unknown';
    if (type === 'context_compacted') return this.compactedEvent(p, at);
    if (type === 'user_message') {
      delete this.state.compactedItem;
      const message = asString(p.message) ?? '';
      this.describePrompt(message);
      if (this.userItems()) return this.sink.ignore('event_msg:user_message');
      this.userTurn();
      const images = Array.isArray(p.images) ? p.images.length : 0;
      const text = message + (images > 0 ? `\n[${images} image(s)]` : '');
      this.sink.message(MAIN, { role: 'user', content: text, ...at });
    } else if (type === 'token_count' && isRecord(p.info)) {
      const counting = this.state.tokenCounts === true;
      // Live sync, the first such event: the model run it reports was counted as a call when
      // its first item came (no event had told that the file has them); it is that call.
      const counted = !counting && this.options.tokenCounts === undefined && this.state.inModelRun;
      this.state.tokenCounts = true;
      const total = isRecord(p.info.total_token_usage)
        ? toUsage(p.info.total_token_usage)
        : undefined;
      const last = isRecord(p.info.last_token_usage) ? toUsage(p.info.last_token_usage) : undefined;
      let usage: Partial<TokenUsage> | undefined = last;
      // The cumulative total: what it grew by is this call's (their sum is the last total).
      // A state saved before totals were kept goes on from the next total.
      if (total && (this.state.total !== undefined || !counting)) {
        const before = this.state.total ?? NO_USAGE;
        usage = {};
        for (const field of Object.keys(total) as (keyof TokenUsage)[])
          usage[field] = total[field] - before[field];
      }
      if (total) this.state.total = total;
      this.sink.llmCall(MAIN, usage, counted ? 0 : 1);
    } else if (type !== 'token_count') this.sink.ignore(`event_msg:${type}`);
  }

  private item(p: Record<string, unknown>, at: At, lineNo: number, ref?: EntryRef): void {
    const type = asString(p.type) ?? 'unknown';
    switch (type) {
      case 'message':
        return this.message(p, at, lineNo, ref);
      case 'reasoning': {
        this.flush();
        this.modelItem();
        this.sink.message(MAIN, {
          role: 'assistant',
          content: reasoningText(p),
          name: REASONING_NAME,
          ...at,
          historyOnly: true,
          ...this.replyModel(),
        });
        return;
      }
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call': {
        this.modelItem();
        const id = codexCallId(p) ?? `call_line${lineNo}`;
        const namespace = asString(p.namespace) ?? '';
        const name =
          type === 'local_shell_call' ? 'local_shell' : namespace + (asString(p.name) ?? 'unknown');
        const args =
          type === 'function_call' ? p.arguments : type === 'custom_tool_call' ? p.input : p.action;
        const pending = (this.pending ??= {
          text: null,
          toolCalls: [],
          starts: [],
          line: lineNo,
          refs: [],
          ...ts(at),
          ...this.replyModel(),
        });
        if (ref) pending.refs.push(ref);
        pending.toolCalls.push({
          id,
          type: 'function',
          function: { name, arguments: argumentsString(args) },
        });
        pending.starts.push({ id, name, args: argumentsValue(args), ...ts(at) });
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        this.flush();
        this.state.inModelRun = false;
        const id = codexCallId(p) ?? '';
        const { text, isError } = outputOf(p.output);
        const call = this.state.calls[id];
        delete this.state.calls[id];
        const closed = call === undefined ? this.state.closed?.[id] : undefined;
        // A call already recorded without a result (the file was still): not recorded twice.
        if (closed !== undefined) delete this.state.closed![id];
        else
          this.sink.tool(
            MAIN,
            answeredCall(call && { id, ...call }, { id, content: text, isError, ...ts(at) }),
          );
        const name = call?.name ?? closed;
        this.sink.message(MAIN, {
          role: 'tool',
          content: text,
          tool_call_id: id,
          ...(name !== undefined && { tool_name: name }),
          ...at,
        });
        return;
      }
      case 'web_search_call':
        this.flush();
        this.modelItem();
        this.sink.tool(MAIN, {
          tool: 'web_search',
          args: p.action ?? {},
          result: null,
          status: 'success',
          duration_ms: 0,
          ...ts(at),
        });
        return;
      default:
        this.sink.ignore(`response_item:${type}`);
    }
  }

  private message(p: Record<string, unknown>, at: At, lineNo: number, ref?: EntryRef): void {
    const role = asString(p.role);
    const text = codexMessageText(p);
    if (role === 'assistant') {
      this.flush();
      this.modelItem();
      this.pending = {
        text,
        toolCalls: [],
        starts: [],
        line: lineNo,
        refs: ref ? [ref] : [],
        ...ts(at),
        ...this.replyModel(),
      };
    } else if (role === 'user') {
      if (this.options.userItems === false) return this.sink.ignore('response_item:message:user');
      this.state.userItems = true;
      // As the importer's scan: the events' request, else the first item that is one.
      if (!text.trimStart().startsWith('<')) this.describePrompt(text);
      this.userTurn();
      this.sink.message(MAIN, { role: 'user', content: text, ...at });
    } else {
      this.flush();
      this.state.inModelRun = false;
      this.sink.message(MAIN, { role: 'system', content: text, ...at });
    }
  }

  /**
   * Codex compacted its context: the new context is the `replacement_history` it kept (the
   * summary among them), else its `message` as the summary. A `compacted` item with neither
   * is recorded as it is, with a note, its new context empty but for the instructions.
   */
  private compacted(p: Record<string, unknown>, at: At): void {
    this.flush();
    this.state.inModelRun = false;
    this.state.compactedItem = true;
    const summary = asString(p.message) ?? '';
    const replacement = Array.isArray(p.replacement_history) ? p.replacement_history : undefined;
    const messages: NewMessage[] = [];
    let summaryWritten = false;
    for (const item of replacement ?? []) {
      // Remote compaction: the summary is the provider's, encrypted; shown as what it is.
      if (isRecord(item) && typeof item.encrypted_content === 'string') {
        summaryWritten = true;
        messages.push({
          role: 'user',
          content: `[Codex's compaction summary, encrypted by the provider: ${item.encrypted_content.length} characters]`,
          kind: 'summary',
          ...at,
        });
        continue;
      }
      if (!isRecord(item) || item.type !== 'message') {
        this.sink.ignore('compacted:replacement_item');
        continue;
      }
      const text = codexMessageText(item);
      const role =
        item.role === 'assistant' ? 'assistant' : item.role === 'user' ? 'user' : 'system';
      const isSummary: boolean = !summaryWritten && summary !== '' && text.includes(summary);
      summaryWritten ||= isSummary;
      messages.push({ role, content: text, ...(isSummary && { kind: 'summary' }), ...at });
    }
    if (!summaryWritten && (summary !== '' || messages.length === 0))
      messages.push({ role: 'user', content: summary, kind: 'summary', ...at });
    const note =
      summary === '' && messages.every((m) => m.kind === 'summary')
        ? 'compacted item without a summary or kept messages'
        : summary === ''
          ? 'compacted item without a summary message: its kept messages are the new context'
          : undefined;
    this.sink.compaction(MAIN, {
      strategy: 'codex-compact',
      summary,
      messages,
      ...(at.timestamp !== undefined && { at: at.timestamp }),
      extra: {
        source_format: 'codex',
        ...(replacement && { replacement_items: replacement.length }),
        ...(note !== undefined && { note }),
      },
    });
  }

  /**
   * A `context_compacted` event: Codex writes it right after its `compacted` item, so it is
   * that compaction. Alone (the item lost: a truncated or damaged file, a Codex build that
   * wrote only the event) it is still a compaction: the record says the file holds no summary
   * (newer builds put one on the event: it is used) and the diff still shows what left.
   */
  private compactedEvent(p: Record<string, unknown>, at: At): void {
    if (this.state.compactedItem) {
      delete this.state.compactedItem;
      return this.sink.ignore('event_msg:context_compacted');
    }
    this.flush();
    this.state.inModelRun = false;
    const summary = asString(p.summary) ?? '';
    const before = asNumber(p.tokens_before);
    this.sink.compaction(MAIN, {
      strategy: 'codex-compact',
      summary,
      messages: summary === '' ? [] : [{ role: 'user', content: summary, kind: 'summary', ...at }],
      ...(at.timestamp !== undefined && { at: at.timestamp }),
      // Older builds wrote i32::MAX when they had no count.
      ...(before > 0 && before < 2 ** 31 - 1 && { agentTokensBefore: before }),
      extra: {
        source_format: 'codex',
        note:
          summary === ''
            ? 'context_compacted event without a compacted item: the file holds no summary, nor what Codex kept'
            : 'context_compacted event without a compacted item: its summary is the new context; what else Codex kept is not in the file',
      },
    });
  }

  /** The first real request titles the task (live sync; the import's scan finds the same). */
  private describePrompt(text: string): void {
    if (this.state.forkHistory || realRequest(text) === undefined) return;
    const prompt = userRequest(text);
    const request = realRequest(prompt);
    this.sink.describe(MAIN, { prompt, ...(request !== undefined && { request }) });
  }

  private userItems(): boolean {
    return this.options.userItems ?? this.state.userItems;
  }

  /** A user turn ends the model's run and any assistant message being assembled. */
  private userTurn(): void {
    this.flush();
    this.state.inModelRun = false;
  }

  /** Without token_count events, each run of model items is one LLM call. */
  private modelItem(): void {
    const counted = this.options.tokenCounts ?? this.state.tokenCounts === true;
    if (!this.state.inModelRun && !counted) this.sink.llmCall(MAIN);
    this.state.inModelRun = true;
  }

  private flush(): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    this.sink.message(MAIN, {
      role: 'assistant',
      content: pending.text,
      ...(pending.toolCalls.length > 0 && { tool_calls: pending.toolCalls }),
      ...(pending.timestamp !== undefined && { timestamp: pending.timestamp }),
      ...(pending.line < (this.options.historyBefore ?? 0) && { historyOnly: true }),
      ...(pending.model !== undefined && { model: pending.model }),
    });
    for (const { id, ...call } of pending.starts) this.state.calls[id] = call;
  }

  /** A reply written by another model than the task's (a model change mid-session) names it. */
  private replyModel(): { model?: string } {
    const { model, taskModel } = this.state;
    return model !== undefined && model !== taskModel ? { model } : {};
  }
}

function ts(at: At): { timestamp?: string } {
  return at.timestamp !== undefined ? { timestamp: at.timestamp } : {};
}

function reasoningText(p: Record<string, unknown>): string {
  const summary = contentText(p.summary);
  const content = contentText(p.content);
  const text = [summary, content].filter((t) => t !== '').join('\n\n');
  if (text !== '') return text;
  const encrypted = asString(p.encrypted_content);
  return encrypted
    ? `[encrypted reasoning, ${encrypted.length} characters]`
    : '[reasoning without text]';
}

/** Outputs are a string, or (older rollouts) `{content, success}`. */
function outputOf(output: unknown): { text: string; isError: boolean } {
  if (typeof output === 'string') return { text: output, isError: false };
  if (isRecord(output)) {
    return { text: contentText(output.content ?? ''), isError: output.success === false };
  }
  return { text: contentText(output), isError: false };
}

/**
 * OpenAI usage counts cached input inside input_tokens; stored as the uncached part so
 * that input + cache reads + output = total, as for the other providers.
 */
export function toUsage(u: Record<string, unknown>): TokenUsage {
  const input = asNumber(u.input_tokens);
  const cached = Math.min(asNumber(u.cached_input_tokens), input);
  const output = asNumber(u.output_tokens);
  return {
    input_tokens: input - cached,
    output_tokens: output,
    cache_creation_tokens: 0,
    cache_read_tokens: cached,
    total_tokens: asNumber(u.total_tokens) || input + output,
  };
}
