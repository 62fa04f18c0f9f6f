/**
 * opencode sessions (sst/opencode `packages/opencode/src/session/message-v2.ts`), and those
 * of Kilo CLI (Kilo-Org/kilocode, the same code): a session, its messages (`info`: role,
 * times, model, `tokens`, `cost`, `path.cwd`) and each message's parts in id order. The
 * stores differ only in where the records live (opencode-db.ts: the `session`, `message`
 * and `part` tables of opencode.db / kilo.db; opencode-storage.ts: the older JSON files);
 * both hand the records to `opencodeEvents`.
 *
 * - user message → one user message: its text parts (not `ignored` ones) and a line per file
 *   part; a message with nothing but a compaction part asks for a summary (ignored).
 * - assistant message → one assistant message per step (`step-start` … `step-finish`, one
 *   LLM request each; usage from the step's `step-finish`, else the message's `tokens`):
 *   its reasoning parts first as one history-only message, then text and tool calls, then
 *   one tool message per tool part that has a result (`completed` output, `error` text). A
 *   call still `pending`/`running` has no result yet.
 * - snapshot, patch, retry and agent parts are bookkeeping of the TUI: counted as ignored.
 * - compaction (session/compaction.ts): a user message with a `compaction` part asks for it;
 *   the reply is an assistant message marked `summary` whose text the model continues from,
 *   everything before the request dropping out of its context (message-v2's
 *   filterCompacted). That reply is the agent's own compaction record (agent-compaction.ts):
 *   its text the new context, its model call and usage on the record, the tokens of the last
 *   reply before it the agent's own count of what it compacted.
 *
 * Keys: `opencode:<message id>` for a user message and a step without a `step-start`,
 * `opencode:<step-start part id>` for a step, `…/reasoning` for its reasoning,
 * `opencode:<tool part id>` for a result: ids opencode never reuses.
 */
import type { TokenUsage, ToolCall } from '../../shared/task-types';
import type { CompactionInput } from './agent-compaction';
import type { AgentId, SessionEvent, SessionMessage, SessionMeta } from './session-format';
import { REASONING_NAME } from './types';
import { argumentsString, asNumber, asString, isRecord, normalizeTimestamp } from './text';

export interface OpencodeSession {
  id: string;
  title?: string;
  directory?: string;
  parentId?: string;
  projectId?: string;
  version?: string;
  created?: number;
  updated?: number;
  cost?: number;
}

export interface OpencodeMessage {
  id: string;
  info: Record<string, unknown>;
  /** In id order (ids grow with time), as opencode reads them back. */
  parts: Record<string, unknown>[];
}

/** opencode's placeholder titles until it has generated one. */
const DEFAULT_TITLE = /^(New session|Child session) - \d{4}-\d\d-\d\dT/;

const BOOKKEEPING_PARTS = new Set(['snapshot', 'patch', 'retry', 'agent']);

export function opencodeSessionMeta(
  agent: AgentId,
  session: OpencodeSession,
  messages: readonly OpencodeMessage[],
): SessionMeta {
  const title = session.title?.trim();
  const firstModel = messages
    .map((m) => asString(m.info.modelID) ?? modelOf(m.info.model))
    .find((x) => x !== undefined);
  const started = normalizeTimestamp(session.created);
  const updated = normalizeTimestamp(session.updated);
  return {
    agent,
    sessionId: session.id,
    ...(title && !DEFAULT_TITLE.test(title) && { title }),
    ...(session.directory && { cwd: session.directory }),
    ...(firstModel !== undefined && { model: firstModel }),
    ...(started !== undefined && { startedAt: started }),
    ...(updated !== undefined && { updatedAt: updated }),
    // A `task` tool's child session: a sub-agent task under its parent's, titled
    // `<description> (@<agent> subagent)` by opencode.
    ...(session.parentId !== undefined && {
      parentSessionId: session.parentId,
      ...(title && { description: title.replace(/\s*\(@[^()]*\)$/, '') }),
    }),
    extra: {
      project_id: session.projectId ?? null,
      parent_session_id: session.parentId ?? null,
      agent_version: session.version ?? null,
      ...(session.cost !== undefined && session.cost > 0 && { cost: session.cost }),
    },
  };
}

/**
 * The events of one session: its metadata, then its messages in order. Unless `final` (an
 * import, or a session still for a while), what opencode is still writing is left out for a
 * later read: the last step of a reply not yet finished (its text grows in place), and a
 * last user message (its parts are written one by one).
 */
export function* opencodeEvents(
  agent: AgentId,
  session: OpencodeSession,
  messages: readonly OpencodeMessage[],
  final = true,
): Generator<SessionEvent> {
  yield { kind: 'session', key: session.id, meta: opencodeSessionMeta(agent, session, messages) };
  const requests = compactionRequests(messages);
  let lastContext: number | undefined;
  for (const [i, m] of messages.entries()) {
    const role = m.info.role;
    if (role === 'user') {
      // Its parts are written one by one: complete once the reply to it has started.
      if (!final && i === messages.length - 1) continue;
      yield* userMessage(m, i);
    } else if (role === 'assistant' && m.info.summary === true) {
      const request = requests.get(asString(m.info.parentID) ?? '');
      yield* compactionSummary(agent, m, final, { request, tokensBefore: lastContext });
    } else if (role === 'assistant') {
      lastContext = contextTokens(m.info.tokens) ?? lastContext;
      yield* assistantMessage(m, i, final);
    } else
      yield {
        kind: 'skip',
        key: `opencode:${m.id}`,
        where: `message ${m.id}`,
        reason: `unknown role ${JSON.stringify(role)}`,
      };
  }
}

/** The user messages asking for a compaction, by id: whether opencode asked by itself. */
function compactionRequests(messages: readonly OpencodeMessage[]): Map<string, boolean> {
  const requests = new Map<string, boolean>();
  for (const m of messages) {
    const part = m.parts.find((p) => p.type === 'compaction');
    if (m.info.role === 'user' && part) requests.set(m.id, part.auto === true);
  }
  return requests;
}

/** The context a reply was given: its input tokens, cached ones included (as opencode counts). */
function contextTokens(tokens: unknown): number | undefined {
  const u = usageOf(tokens);
  const n = (u?.input_tokens ?? 0) + (u?.cache_read_tokens ?? 0) + (u?.cache_creation_tokens ?? 0);
  return n > 0 ? n : undefined;
}

function* compactionSummary(
  agent: AgentId,
  m: OpencodeMessage,
  final: boolean,
  context: { request: boolean | undefined; tokensBefore: number | undefined },
): Generator<SessionEvent> {
  const key = `opencode:${m.id}`;
  const completed = isRecord(m.info.time) && m.info.time.completed !== undefined;
  // Its text grows in place until it is done.
  if (!final && !completed && m.info.error === undefined) return;
  const texts: string[] = [];
  for (const part of m.parts) {
    if (part.type === 'text' && part.ignored !== true && typeof part.text === 'string')
      texts.push(part.text);
    else
      yield {
        kind: 'ignore',
        key: partKey(part),
        what: `opencode summary ${String(part.type)} part`,
      };
  }
  const summary = texts.join('\n\n').trim();
  if (summary === '' && m.info.error !== undefined) {
    yield {
      kind: 'skip',
      key,
      where: `message ${m.id}`,
      reason: 'a compaction whose model call failed',
    };
    return;
  }
  yield { kind: 'compaction', key, compaction: opencodeCompaction(agent, m, summary, context) };
}

function opencodeCompaction(
  agent: AgentId,
  m: OpencodeMessage,
  summary: string,
  context: { request: boolean | undefined; tokensBefore: number | undefined },
): CompactionInput {
  const at = timeOf(m.info);
  const usage = usageOf(m.info.tokens);
  const model = asString(m.info.modelID) ?? modelOf(m.info.model);
  return {
    strategy: `${agent}-compact`,
    summary,
    messages:
      summary === '' ? [] : [{ role: 'assistant', content: summary, kind: 'summary', ...at }],
    ...(at.timestamp !== undefined && { at: at.timestamp }),
    ...(context.tokensBefore !== undefined && { agentTokensBefore: context.tokensBefore }),
    ...(usage && {
      llmUsage: {
        input_tokens: usage.input_tokens ?? 0,
        output_tokens: usage.output_tokens ?? 0,
        cache_read_tokens: usage.cache_read_tokens ?? 0,
        cache_creation_tokens: usage.cache_creation_tokens ?? 0,
        total_tokens: usage.total_tokens ?? 0,
      },
    }),
    ...(model !== undefined && { model }),
    extra: {
      source_format: agent,
      ...(context.request !== undefined && { trigger: context.request ? 'auto' : 'manual' }),
      ...(summary === '' && { note: 'the file holds no summary text for this compaction' }),
    },
  };
}

function modelOf(model: unknown): string | undefined {
  return isRecord(model) ? asString(model.modelID) : undefined;
}

function timeOf(info: Record<string, unknown>): { timestamp?: string } {
  const created = isRecord(info.time) ? normalizeTimestamp(info.time.created) : undefined;
  return created !== undefined ? { timestamp: created } : {};
}

function* userMessage(m: OpencodeMessage, i: number): Generator<SessionEvent> {
  const texts: string[] = [];
  let compaction = false;
  for (const part of m.parts) {
    const type = part.type;
    if (type === 'text') {
      if (part.ignored === true) yield { kind: 'ignore', key: partKey(part), what: 'ignored text' };
      else if (typeof part.text === 'string') texts.push(part.text);
    } else if (type === 'file') {
      const name = asString(part.filename) ?? asString(part.url) ?? 'file';
      texts.push(`[file: ${name}${typeof part.mime === 'string' ? ` (${part.mime})` : ''}]`);
    } else if (type === 'subtask') {
      texts.push(
        `[subtask for ${asString(part.agent) ?? 'an agent'}] ${asString(part.prompt) ?? ''}`,
      );
    } else if (type === 'compaction') compaction = true;
    else if (typeof type === 'string' && BOOKKEEPING_PARTS.has(type))
      yield { kind: 'ignore', key: partKey(part), what: `opencode ${type} part` };
    else yield unknownPart(m, part, i);
  }
  const key = `opencode:${m.id}`;
  if (texts.length === 0) {
    if (compaction) yield { kind: 'ignore', key, what: 'opencode compaction request' };
    else
      yield {
        kind: 'skip',
        key,
        where: `message ${m.id}`,
        reason: 'a user message without text (its parts may not be written yet)',
      };
    return;
  }
  yield {
    kind: 'message',
    key,
    message: { role: 'user', content: texts.join('\n'), ...timeOf(m.info) },
  };
}

interface Step {
  key: string;
  reasoning: string[];
  texts: string[];
  tools: Record<string, unknown>[];
  usage?: Partial<TokenUsage>;
  timestamp?: string;
}

function* assistantMessage(m: OpencodeMessage, i: number, final: boolean): Generator<SessionEvent> {
  const at = timeOf(m.info);
  const steps: Step[] = [];
  let step: Step | undefined;
  const current = (key: string): Step => {
    if (!step) {
      step = { key, reasoning: [], texts: [], tools: [], ...at };
      steps.push(step);
    }
    return step;
  };
  for (const part of m.parts) {
    const type = part.type;
    if (type === 'step-start') {
      step = undefined;
      const started = current(partKey(part));
      const t = isRecord(part.time) ? normalizeTimestamp(part.time.start) : undefined;
      if (t !== undefined) started.timestamp = t;
    } else if (type === 'step-finish') {
      current(`opencode:${m.id}`).usage = usageOf(part.tokens);
      step = undefined;
    } else if (type === 'reasoning') {
      if (typeof part.text === 'string' && part.text.trim() !== '')
        current(`opencode:${m.id}`).reasoning.push(part.text);
    } else if (type === 'text') {
      if (part.ignored === true) yield { kind: 'ignore', key: partKey(part), what: 'ignored text' };
      else if (typeof part.text === 'string') current(`opencode:${m.id}`).texts.push(part.text);
    } else if (type === 'tool') current(`opencode:${m.id}`).tools.push(part);
    else if (type === 'file') {
      const name = asString(part.filename) ?? asString(part.url) ?? 'file';
      current(`opencode:${m.id}`).texts.push(`[file: ${name}]`);
    } else if (typeof type === 'string' && (BOOKKEEPING_PARTS.has(type) || type === 'compaction'))
      yield { kind: 'ignore', key: partKey(part), what: `opencode ${type} part` };
    else yield unknownPart(m, part, i);
  }
  const completed = isRecord(m.info.time) && m.info.time.completed !== undefined;
  const last = steps[steps.length - 1];
  // Still streaming: its last step waits for its step-finish (or the session to be still).
  if (!final && !completed && !m.info.error && (!last || last.usage === undefined)) {
    if (!last) return;
    steps.pop();
  }
  // A message whose steps recorded no usage: its own totals go with its last step.
  if (completed && steps.length > 0 && steps.every((s) => s.usage === undefined))
    steps[steps.length - 1]!.usage = usageOf(m.info.tokens);
  const model = asString(m.info.modelID) ?? modelOf(m.info.model);
  let wrote = false;
  for (const s of steps) {
    const events = [...stepEvents(s, model)];
    wrote ||= events.some((e) => e.kind === 'message');
    yield* events;
  }
  if (!wrote && (final || completed || m.info.error !== undefined)) {
    const error = isRecord(m.info.error) ? m.info.error : undefined;
    const detail = error && isRecord(error.data) ? asString(error.data.message) : undefined;
    yield {
      kind: 'skip',
      key: `opencode:${m.id}`,
      where: `message ${m.id}`,
      reason: error
        ? `the model call failed (${asString(error.name) ?? 'error'}${detail ? `: ${detail}` : ''}): no reply`
        : 'an assistant message without text or tool calls',
    };
  }
}

function* stepEvents(s: Step, model: string | undefined): Generator<SessionEvent> {
  const at = s.timestamp !== undefined ? { timestamp: s.timestamp } : {};
  if (s.reasoning.length > 0)
    yield {
      kind: 'message',
      key: `${s.key}/reasoning`,
      message: {
        role: 'assistant',
        content: s.reasoning.join('\n\n'),
        name: REASONING_NAME,
        historyOnly: true,
        ...at,
      },
    };
  const calls: ToolCall[] = [];
  const results: { key: string; message: SessionMessage }[] = [];
  for (const part of s.tools) {
    const id = asString(part.callID) ?? asString(part.id) ?? `${s.key}-call-${calls.length + 1}`;
    const name = asString(part.tool) ?? 'tool';
    const state = isRecord(part.state) ? part.state : {};
    calls.push({
      id,
      type: 'function',
      function: { name, arguments: argumentsString(state.input ?? {}) },
    });
    const status = state.status;
    if (status !== 'completed' && status !== 'error') continue;
    const time = isRecord(state.time) ? normalizeTimestamp(state.time.end) : undefined;
    // A call cut off while it ran (`metadata.interrupted`) keeps what it printed so far:
    // that is what opencode gives the model (message-v2.ts toModelMessages).
    const meta = isRecord(state.metadata) ? state.metadata : {};
    const partial = meta.interrupted === true ? asString(meta.output) : undefined;
    results.push({
      key: partKey(part),
      message: {
        role: 'tool',
        content:
          status === 'completed'
            ? (asString(state.output) ?? '')
            : (partial ?? asString(state.error) ?? 'the tool failed'),
        tool_call_id: id,
        tool_name: name,
        isError: status === 'error',
        ...(time !== undefined ? { timestamp: time } : at),
      },
    });
  }
  if (s.texts.length === 0 && calls.length === 0) {
    if (s.reasoning.length === 0)
      yield { kind: 'ignore', key: s.key, what: 'opencode step without output' };
    return;
  }
  yield {
    kind: 'message',
    key: s.key,
    message: {
      role: 'assistant',
      content: s.texts.length > 0 ? s.texts.join('\n') : null,
      ...(calls.length > 0 && { tool_calls: calls }),
      ...at,
    },
    llmCall: true,
    ...(s.usage !== undefined && { usage: s.usage }),
    ...(model !== undefined && { model }),
  };
  for (const r of results) yield { kind: 'message', ...r };
}

/** opencode's `tokens`: input excludes the cache; reasoning is billed as output. */
function usageOf(tokens: unknown): Partial<TokenUsage> | undefined {
  if (!isRecord(tokens)) return undefined;
  const cache = isRecord(tokens.cache) ? tokens.cache : {};
  const usage = {
    input_tokens: asNumber(tokens.input),
    output_tokens: asNumber(tokens.output) + asNumber(tokens.reasoning),
    cache_read_tokens: asNumber(cache.read),
    cache_creation_tokens: asNumber(cache.write),
  };
  const total =
    usage.input_tokens +
    usage.output_tokens +
    usage.cache_read_tokens +
    usage.cache_creation_tokens;
  return total > 0 ? { ...usage, total_tokens: total } : undefined;
}

function partKey(part: Record<string, unknown>): string {
  return `opencode:${asString(part.id) ?? 'part'}`;
}

function unknownPart(m: OpencodeMessage, part: Record<string, unknown>, i: number): SessionEvent {
  return {
    kind: 'skip',
    key: partKey(part),
    where: `message ${i + 1} (${m.id})`,
    reason: `unknown part type ${JSON.stringify(part.type)}`,
  };
}
