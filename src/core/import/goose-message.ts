/**
 * One Goose message (block/goose `crates/goose/src/conversation/message.rs`: `{role, created,
 * content, metadata}`), as sessions.db keeps it in a row (goose-db.ts) and the older JSON Lines
 * sessions on a line (goose-jsonl.ts); the mapping is described in goose-db.ts.
 *
 * Keys: `goose:<created>:<hash of role and content>` (and `/n` for the n-th repeat): Goose
 * rewrites a conversation whole (new row ids in the database; the whole file in JSON Lines)
 * when it summarizes it, so neither row ids nor line numbers are stable.
 */
import crypto from 'node:crypto';
import type { ToolCall } from '../../shared/task-types';
import type { SessionEvent, SessionMessage } from './session-format';
import { REASONING_NAME } from './types';
import { argumentsString, asString, contentText, isRecord, naiveUtcTimestamp } from './text';

export interface GooseMessage {
  role: string;
  /** Its content list (parsed). */
  content: unknown;
  /** Seconds since the epoch. */
  created: number;
  /** `{userVisible, agentVisible}`, when recorded. */
  metadata?: unknown;
}

/** Gives each message its key, numbering repeats of the same second and content. */
export class GooseKeys {
  private readonly seen = new Map<string, number>();

  next(role: string, created: number, contentJson: string): string {
    const hash = crypto.createHash('sha256').update(`${role}\0${contentJson}`).digest('hex');
    const base = `goose:${created}:${hash.slice(0, 12)}`;
    const n = this.seen.get(base) ?? 0;
    this.seen.set(base, n + 1);
    return n === 0 ? base : `${base}/${n}`;
  }
}

export function* gooseMessage(
  row: GooseMessage,
  key: string,
  where: string,
): Generator<SessionEvent> {
  const content = row.content;
  if (!Array.isArray(content)) {
    yield { kind: 'skip', key, where, reason: 'its content is not a list' };
    return;
  }
  const meta = row.metadata;
  const hidden = isRecord(meta) && meta.agentVisible === false ? { historyOnly: true } : {};
  // Seconds (milliseconds from a few releases: Goose reads either).
  const ms = row.created > 1e10 ? row.created : row.created * 1000;
  const timestamp = row.created > 0 ? naiveUtcTimestamp(ms) : undefined;
  const at = timestamp !== undefined ? { timestamp } : {};
  const texts: string[] = [];
  const thoughts: string[] = [];
  const calls: ToolCall[] = [];
  const results: { key: string; message: SessionMessage }[] = [];
  for (const [j, c] of content.entries()) {
    if (!isRecord(c)) continue;
    const type = c.type;
    if (type === 'text') texts.push(asString(c.text) ?? '');
    else if (type === 'image')
      texts.push(`[image${typeof c.mimeType === 'string' ? ` ${c.mimeType}` : ''}]`);
    else if (type === 'thinking') thoughts.push(asString(c.thinking) ?? '');
    else if (type === 'redactedThinking')
      yield { kind: 'ignore', key: `${key}/${j}`, what: 'goose redacted thinking' };
    else if (type === 'toolRequest' || type === 'frontendToolRequest') {
      const call = isRecord(c.toolCall) ? c.toolCall : {};
      const value = isRecord(call.value) ? call.value : undefined;
      const callId = asString(c.id) ?? `${key}-call-${j}`;
      if (!value || typeof value.name !== 'string') {
        yield {
          kind: 'skip',
          key: `${key}/${j}`,
          where,
          reason: `a tool call Goose could not read: ${asString(call.error) ?? 'no name'}`,
        };
        continue;
      }
      calls.push({
        id: callId,
        type: 'function',
        function: { name: value.name, arguments: argumentsString(value.arguments ?? {}) },
      });
    } else if (type === 'toolResponse') {
      const result = isRecord(c.toolResult) ? c.toolResult : {};
      const value = result.value;
      const list = Array.isArray(value) ? value : isRecord(value) ? value.content : undefined;
      const failed = result.status === 'error' || (isRecord(value) && value.isError === true);
      results.push({
        key: `${key}/tool:${asString(c.id) ?? j}`,
        message: {
          role: 'tool',
          content:
            result.status === 'error'
              ? (asString(result.error) ?? 'error')
              : contentText(forTheModel(list)),
          tool_call_id: asString(c.id) ?? '',
          isError: failed,
          ...at,
          ...hidden,
        },
      });
    } else if (typeof type === 'string')
      yield { kind: 'ignore', key: `${key}/${j}`, what: `goose ${type}` };
  }
  if (row.role === 'assistant') {
    if (thoughts.length > 0)
      yield {
        kind: 'message',
        key: `${key}/thinking`,
        message: {
          role: 'assistant',
          content: thoughts.join('\n\n'),
          name: REASONING_NAME,
          historyOnly: true,
          ...at,
        },
      };
    if (texts.length === 0 && calls.length === 0) {
      if (thoughts.length === 0)
        yield { kind: 'ignore', key, what: 'goose message without content for the model' };
      return;
    }
    yield {
      kind: 'message',
      key,
      message: {
        role: 'assistant',
        content: texts.length > 0 ? texts.join('\n') : null,
        ...(calls.length > 0 && { tool_calls: calls }),
        ...at,
        ...hidden,
      },
      llmCall: true,
    };
    for (const r of results) yield { kind: 'message', ...r };
    return;
  }
  for (const r of results) yield { kind: 'message', ...r };
  if (texts.length > 0)
    yield {
      kind: 'message',
      key,
      message: { role: 'user', content: texts.join('\n'), ...at, ...hidden },
    };
  else if (results.length === 0)
    yield { kind: 'ignore', key, what: 'goose message without content for the model' };
}

/**
 * The parts of a tool result the model reads: Goose's tools answer twice, once for the
 * assistant and once for the user (`annotations.audience`), and sends the model only the
 * parts meant for it (or for everyone).
 */
function forTheModel(list: unknown): unknown {
  if (!Array.isArray(list)) return list;
  return list.filter((part) => {
    const audience = isRecord(part) && isRecord(part.annotations) ? part.annotations.audience : [];
    return !Array.isArray(audience) || audience.length === 0 || audience.includes('assistant');
  });
}
