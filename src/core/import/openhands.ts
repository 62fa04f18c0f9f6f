/**
 * OpenHands trajectories and events → one task per session.
 *
 * Accepted: a trajectory (`save_trajectory_path`, the tests' `trajs/*.json`: a list of
 * events), `{history | trajectory: [events]}` (evaluation output), or one event JSON of a
 * session's `events/<n>.json` folder, in which case every numbered event of that folder is
 * read, in order. An event is an action (`action`) or an observation (`observation`, with
 * `cause` = the id of the action it answers), from `source` user / agent / environment.
 *
 * - user `message` → user message; agent `message` → assistant message (one LLM call);
 *   `system` → system message.
 * - Agent actions (run, edit, read, browse, …) → an assistant message with one tool call:
 *   the function-calling id and arguments from `tool_call_metadata` when present, else
 *   `oh-<event id>` and the action's args. `finish` and `think` are the agent's own words:
 *   assistant messages without a tool call.
 * - Observations with a `cause` → the tool message answering that call (`error`
 *   observations and non-zero exit codes → failed executions).
 * - One LLM call per distinct `model_response.id` (several actions can share one response),
 *   its `usage` counted once.
 * - Other events (agent state changes, recalls, null observations) → ignored, by kind.
 *
 * Times have no zone (Python's isoformat): read as UTC. Keys: `openhands:<event id>`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readJsonDocument } from './json-document';
import type { SessionEvent, SessionFormat } from './session-format';
import { realRequest } from './session-meta';
import { argumentsString, asNumber, asString, isRecord, naiveUtcTimestamp } from './text';

function isEvent(value: unknown): value is Record<string, unknown> {
  return (
    isRecord(value) &&
    (typeof value.action === 'string' || typeof value.observation === 'string') &&
    typeof value.source === 'string'
  );
}

function eventList(doc: unknown): unknown[] | undefined {
  if (Array.isArray(doc)) return doc;
  if (!isRecord(doc)) return undefined;
  for (const key of ['history', 'trajectory', 'events']) {
    const list = doc[key];
    if (Array.isArray(list)) return list;
  }
  return undefined;
}

export function isOpenHandsDocument(doc: unknown): boolean {
  if (isEvent(doc)) return true;
  const list = eventList(doc);
  return list !== undefined && list.length > 0 && list.slice(0, 5).some(isEvent);
}

export const openHandsFormat: SessionFormat = {
  agent: 'openhands',
  input: 'document',
  sniff: (doc) => isOpenHandsDocument(doc),
  async *parse(file, doc, options) {
    const d = doc ?? (await readJsonDocument(file, options?.maxJsonBytes));
    if (isEvent(d)) {
      const events = await readEventFolder(file, d, options?.maxJsonBytes);
      yield* openHandsEvents(file, events, undefined, sessionOfEventFile(file));
    } else {
      yield* openHandsEvents(file, eventList(d) ?? [], isRecord(d) ? d : undefined);
    }
  },
};

/** The events of a session's `events/` folder: `<n>.json` files in numeric order. */
async function readEventFolder(
  file: string,
  first: Record<string, unknown>,
  maxJsonBytes: number | undefined,
): Promise<unknown[]> {
  const dir = path.dirname(file);
  const numbered = fs
    .readdirSync(dir)
    .filter((n) => /^\d+\.json$/.test(n))
    .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
  if (numbered.length <= 1) return [first];
  const events: unknown[] = [];
  for (const name of numbered)
    events.push(await readJsonDocument(path.join(dir, name), maxJsonBytes));
  return events;
}

/** The session id of an event file kept as OpenHands does: `sessions/<id>/events/<n>.json`. */
export function sessionOfEventFile(file: string): string | undefined {
  const events = path.dirname(file);
  return path.basename(events) === 'events' ? path.basename(path.dirname(events)) : undefined;
}

function* openHandsEvents(
  file: string,
  events: unknown[],
  wrapper: Record<string, unknown> | undefined,
  sessionId?: string,
): Generator<SessionEvent> {
  const firstUser = events.find(
    (e) => isEvent(e) && e.source === 'user' && e.action === 'message',
  ) as Record<string, unknown> | undefined;
  const request = firstUser ? realRequest(messageText(firstUser)) : undefined;
  const stamps = events
    .map((e) => (isRecord(e) ? naiveUtcTimestamp(e.timestamp) : undefined))
    .filter(Boolean) as string[];
  const model = events
    .map((e) => (isEvent(e) ? modelResponse(e)?.model : undefined))
    .find((m) => typeof m === 'string');
  const instance =
    (wrapper && (asString(wrapper.instance_id) ?? asString(wrapper.session_id))) ?? sessionId;
  yield {
    kind: 'session',
    key: instance ?? path.basename(file),
    meta: {
      agent: 'openhands',
      ...(instance !== undefined && { sessionId: instance }),
      ...(request !== undefined && { firstRequest: request }),
      ...(typeof model === 'string' && { model }),
      ...(stamps[0] !== undefined && { startedAt: stamps[0] }),
      ...(stamps.length > 0 && { endedAt: stamps[stamps.length - 1]! }),
    },
  };
  const seenResponses = new Set<string>();
  for (let i = 0; i < events.length; i++) yield openHandsEvent(events[i], i, seenResponses);
}

/**
 * One OpenHands event → our message (or why not): the mapping of trajectories and of a
 * session's events folder, read whole (`cwb import`) or event by event (live sync).
 * `seenResponses` holds the model response ids counted so far (several actions share one).
 */
export function openHandsEvent(
  e: unknown,
  i: number,
  seenResponses: { has(id: string): boolean; add(id: string): unknown },
): SessionEvent {
  const key = isRecord(e) && e.id !== undefined ? `openhands:${String(e.id)}` : `e${i}`;
  if (!isEvent(e)) {
    return {
      kind: 'skip',
      key,
      where: `event ${i + 1}`,
      reason: 'not an OpenHands event (no action or observation)',
    };
  }
  const ts = naiveUtcTimestamp(e.timestamp);
  const at = ts !== undefined ? { timestamp: ts } : {};
  const args = isRecord(e.args) ? e.args : {};
  if (typeof e.action === 'string') {
    const action = e.action;
    if (e.source === 'environment' || action === 'recall' || action === 'change_agent_state')
      return { kind: 'ignore', key, what: `openhands ${e.source} ${action}` };
    if (action === 'system') {
      return {
        kind: 'message',
        key,
        message: { role: 'system', content: asString(args.content) ?? messageText(e), ...at },
      };
    }
    if (e.source === 'user') {
      if (action === 'message')
        return { kind: 'message', key, message: { role: 'user', content: messageText(e), ...at } };
      return { kind: 'ignore', key, what: `openhands user ${action}` };
    }
    const response = modelResponse(e);
    const responseId = asString(response?.id);
    const firstOfResponse = responseId === undefined || !seenResponses.has(responseId);
    if (responseId !== undefined) seenResponses.add(responseId);
    const llm = {
      llmCall: firstOfResponse,
      ...(firstOfResponse && response && usageOf(response)),
      ...(typeof response?.model === 'string' && { model: response.model }),
    };
    const meta = isRecord(e.tool_call_metadata) ? e.tool_call_metadata : undefined;
    if (action === 'message' || action === 'finish' || action === 'think' || action === 'reject') {
      const text =
        action === 'message'
          ? messageText(e)
          : [
              asString(args.thought),
              asString(args.final_thought) ?? asString(args.message) ?? asString(e.message),
            ]
              .filter((t) => t && t.trim() !== '')
              .join('\n\n');
      return { kind: 'message', key, message: { role: 'assistant', content: text, ...at }, ...llm };
    }
    const callId = asString(meta?.tool_call_id) ?? `oh-${String(e.id ?? i)}`;
    const name = asString(meta?.function_name) ?? action;
    const thought = asString(args.thought) ?? responseText(response, callId) ?? '';
    return {
      kind: 'message',
      key,
      message: {
        role: 'assistant',
        content: thought,
        tool_calls: [
          {
            id: callId,
            type: 'function',
            function: {
              name,
              arguments: responseArguments(response, callId) ?? argumentsString(actionArgs(args)),
            },
          },
        ],
        ...at,
      },
      ...llm,
    };
  }
  const observation = String(e.observation);
  if (e.cause === undefined || e.cause === null)
    return { kind: 'ignore', key, what: `openhands observation ${observation}` };
  const meta = isRecord(e.tool_call_metadata) ? e.tool_call_metadata : undefined;
  const extras = isRecord(e.extras) ? e.extras : {};
  const exit = isRecord(extras.metadata) ? extras.metadata.exit_code : extras.exit_code;
  return {
    kind: 'message',
    key,
    message: {
      role: 'tool',
      content: asString(e.content) ?? asString(e.message) ?? null,
      tool_call_id: asString(meta?.tool_call_id) ?? `oh-${String(e.cause)}`,
      isError: observation === 'error' || (typeof exit === 'number' && exit !== 0),
      ...at,
    },
  };
}

function messageText(e: Record<string, unknown>): string {
  const args = isRecord(e.args) ? e.args : {};
  return asString(args.content) ?? asString(e.message) ?? '';
}

/** Args without the bookkeeping OpenHands adds (thought is the message, the rest is noise). */
function actionArgs(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (
      ![
        'thought',
        'translated_ipython_code',
        'impl_source',
        'confirmation_state',
        'security_risk',
      ].includes(k)
    )
      out[k] = v;
  }
  return out;
}

function modelResponse(e: Record<string, unknown>): Record<string, unknown> | undefined {
  const meta = isRecord(e.tool_call_metadata) ? e.tool_call_metadata : undefined;
  return meta && isRecord(meta.model_response) ? meta.model_response : undefined;
}

function responseMessage(
  response: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const choices = response && Array.isArray(response.choices) ? response.choices : [];
  const first = choices[0];
  return isRecord(first) && isRecord(first.message) ? first.message : undefined;
}

function responseText(
  response: Record<string, unknown> | undefined,
  _callId: string,
): string | undefined {
  return asString(responseMessage(response)?.content);
}

function responseArguments(
  response: Record<string, unknown> | undefined,
  callId: string,
): string | undefined {
  const calls = responseMessage(response)?.tool_calls;
  if (!Array.isArray(calls)) return undefined;
  const call = calls.find((c) => isRecord(c) && c.id === callId);
  const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
  return fn ? argumentsString(fn.arguments) : undefined;
}

function usageOf(
  response: Record<string, unknown>,
): { usage: Record<string, number> } | Record<string, never> {
  const u = isRecord(response.usage) ? response.usage : undefined;
  if (!u) return {};
  const details = isRecord(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const cacheRead = asNumber(u.cache_read_input_tokens) || asNumber(details.cached_tokens);
  const cacheWrite = asNumber(u.cache_creation_input_tokens);
  const prompt = asNumber(u.prompt_tokens);
  const output = asNumber(u.completion_tokens);
  return {
    usage: {
      // LiteLLM's prompt_tokens for Anthropic includes neither cache figure; for OpenAI it includes cached.
      input_tokens: Math.max(0, prompt - (asNumber(details.cached_tokens) > 0 ? cacheRead : 0)),
      output_tokens: output,
      cache_read_tokens: cacheRead,
      cache_creation_tokens: cacheWrite,
      total_tokens: asNumber(u.total_tokens) || prompt + output,
    },
  };
}
