import { asString, contentText, isRecord, normalizeTimestamp } from './text';

/** One rollout line, normalized across the two layouts Codex has written. */
export type CodexLine =
  | { kind: 'session_meta'; timestamp?: string; payload: Record<string, unknown> }
  | { kind: 'turn_context'; timestamp?: string; payload: Record<string, unknown> }
  | { kind: 'response_item'; timestamp?: string; payload: Record<string, unknown> }
  | { kind: 'event_msg'; timestamp?: string; payload: Record<string, unknown> }
  | { kind: 'compacted'; timestamp?: string; payload: Record<string, unknown> }
  | { kind: 'other'; type: string };

const RESPONSE_ITEM_TYPES = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
]);

/**
 * Current rollouts wrap everything as `{timestamp, type, payload}`. Older ones (2025)
 * start with a bare session line `{id, timestamp, instructions}` followed by bare response
 * items and `{record_type: "state"}` lines; those are read too. Returns undefined for a
 * value that is not a Codex line at all.
 */
export function toCodexLine(value: unknown, lineNo: number): CodexLine | undefined {
  if (!isRecord(value)) return undefined;
  const type = asString(value.type);
  const timestamp = normalizeTimestamp(value.timestamp);
  const ts = timestamp !== undefined ? { timestamp } : {};
  if (type !== undefined && isRecord(value.payload)) {
    switch (type) {
      case 'session_meta':
      case 'turn_context':
      case 'response_item':
      case 'event_msg':
      case 'compacted':
        return { kind: type, ...ts, payload: value.payload };
      default:
        return { kind: 'other', type };
    }
  }
  if (type !== undefined && RESPONSE_ITEM_TYPES.has(type))
    return { kind: 'response_item', ...ts, payload: value };
  if (value.record_type !== undefined)
    return { kind: 'other', type: `record_type:${String(value.record_type)}` };
  if (lineNo === 1 && typeof value.id === 'string' && 'instructions' in value)
    return { kind: 'session_meta', ...ts, payload: value };
  return undefined;
}

/** Text of a Codex `message` item's content parts (input_text, output_text, images...). */
export function codexMessageText(payload: Record<string, unknown>): string {
  return contentText(payload.content);
}

/** The base instructions a session started with (the system prompt), when recorded. */
export function codexInstructions(meta: Record<string, unknown>): string | undefined {
  const base = meta.base_instructions;
  const text = isRecord(base) ? asString(base.text) : asString(base);
  return text ?? asString(meta.instructions) ?? undefined;
}

/**
 * A rollout that is a subagent's thread (Codex's `thread_spawn`): the parent thread's id and
 * the agent's name and role. Its first `session_meta` says so; a second one (the parent's,
 * whose history the subagent was forked from) follows it.
 */
export function codexSubagent(
  meta: Record<string, unknown>,
): { parent: string; label?: string } | undefined {
  const source = isRecord(meta.source) ? meta.source : undefined;
  const sub = isRecord(source?.subagent) ? source.subagent : undefined;
  const spawn = isRecord(sub?.thread_spawn) ? sub.thread_spawn : undefined;
  const parent = asString(spawn?.parent_thread_id) ?? asString(meta.parent_thread_id);
  if (parent === undefined) return undefined;
  const nickname = asString(spawn?.agent_nickname) ?? asString(meta.agent_nickname);
  const role = asString(spawn?.agent_role) ?? asString(meta.agent_role);
  const label = [nickname, role && `(${role})`].filter(Boolean).join(' ');
  return { parent, ...(label !== '' && { label }) };
}

/** The call id of a tool call or output item (current rollouts: call_id; old: id). */
export function codexCallId(payload: Record<string, unknown>): string | undefined {
  return asString(payload.call_id) ?? asString(payload.id);
}
