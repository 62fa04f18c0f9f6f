import type { CurrentMessage, MessageRecord, ToolCall } from '../../shared/task-types';

/** A parsed line that is a message, or why it is not one. */
export type ShapeResult<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * What every reader of messages.jsonl / current.jsonl may rely on, checked once where a
 * line is parsed, so a line that is JSON but not a message (`null`, `0`, `{"content":5}`, a
 * hand edit, another program) cannot reach code that calls string methods on its fields.
 *
 * A line is a message when it is an object with a string `role` (and, in the history, an
 * integer `seq`); anything else is a bad line "not a message". The fields of a message
 * are then made safe to use rather than refusing the whole message: `content` that is not a
 * string or null is shown as its JSON text, `tool_calls` keeps only well-formed calls, token
 * counts that are not numbers read as 0, and optional fields of the wrong type are left out.
 * The file itself is never changed.
 */
export function asCurrentMessage(value: unknown): ShapeResult<CurrentMessage> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: `not a message (${describe(value)}, expected an object)` };
  }
  const raw = value as Record<string, unknown>;
  if (typeof raw.role !== 'string') {
    return { ok: false, error: 'not a message (no string "role")' };
  }
  return { ok: true, value: normalize(raw) as unknown as CurrentMessage };
}

/** asCurrentMessage for a line of messages.jsonl, which also needs its integer `seq`. */
export function asMessageRecord(value: unknown): ShapeResult<MessageRecord> {
  const message = asCurrentMessage(value);
  if (!message.ok) return message;
  const seq = (value as Record<string, unknown>).seq;
  // Any integer: a damaged seq is shown as it is; the offset index, not seq, places a line.
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq)) {
    return { ok: false, error: 'not a message (no integer "seq")' };
  }
  const record = message.value as unknown as Record<string, unknown>;
  if (typeof record.tokens !== 'number' || !Number.isFinite(record.tokens)) record.tokens = 0;
  // Optional since issue #17: dropped when damaged rather than shown as 0.
  if (
    'tokens_o200k' in record &&
    (typeof record.tokens_o200k !== 'number' || !Number.isFinite(record.tokens_o200k))
  )
    delete record.tokens_o200k;
  if (
    'token_counter' in record &&
    record.token_counter !== 'estimate' &&
    record.token_counter !== 'o200k' &&
    record.token_counter !== 'usage'
  )
    delete record.token_counter;
  if (typeof record.timestamp !== 'string') record.timestamp = '';
  for (const field of ['kind', 'output_ref'] as const) {
    if (field in record && typeof record[field] !== 'string') delete record[field];
  }
  // A message a compaction created stays out of the view even when its id is damaged.
  if ('compaction_id' in record && typeof record.compaction_id !== 'number')
    record.compaction_id = -1;
  if ('history_only' in record && record.history_only !== true) delete record.history_only;
  if (
    'usage' in record &&
    (typeof record.usage !== 'object' || record.usage === null || Array.isArray(record.usage))
  )
    delete record.usage;
  return { ok: true, value: record as unknown as MessageRecord };
}

function normalize(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...raw };
  if (raw.content === undefined) out.content = null;
  else if (raw.content !== null && typeof raw.content !== 'string')
    out.content = JSON.stringify(raw.content);
  if ('tool_calls' in raw) {
    const calls = Array.isArray(raw.tool_calls) ? raw.tool_calls.filter(isToolCall) : [];
    if (calls.length > 0) out.tool_calls = calls;
    else if (!Array.isArray(raw.tool_calls) || raw.tool_calls.length > 0) delete out.tool_calls;
  }
  for (const field of ['tool_name', 'tool_call_id', 'name'] as const) {
    if (field in raw && typeof raw[field] !== 'string') delete out[field];
  }
  return out;
}

/** A tool call as readers keep it (a function with a string name and string arguments). */
export function isToolCall(value: unknown): value is ToolCall {
  if (typeof value !== 'object' || value === null) return false;
  const fn = (value as { function?: unknown }).function;
  if (typeof fn !== 'object' || fn === null) return false;
  const { name, arguments: args } = fn as { name?: unknown; arguments?: unknown };
  return typeof name === 'string' && typeof args === 'string';
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
