import type { CurrentMessage, MessageKind, MessageRecord } from '../../shared/task-types';
import { estimateTokens } from '../tokens/estimate';

/**
 * The context the model sees is a view over messages.jsonl (DESIGN.md §4): a list of plan
 * items, each a message by seq (optionally shown with other content — a trimmed tool output,
 * pruned JSON) or an inline message that exists only in the view (a synthetic tool result).
 * Compaction records store the plan they produced; current.jsonl is that plan materialized.
 */
export type PlanItem = { seq: number; content?: string } | { inline: CurrentMessage };

/** A plan item with the message it shows, as a strategy works on it. */
export interface ViewEntry {
  item: PlanItem;
  /** The message as the model sees it (content already replaced when the item says so). */
  message: CurrentMessage;
  /** The stored record when the item points at one. */
  record?: MessageRecord;
  /** Seed estimate of what this entry costs in the context. */
  tokens: number;
  /** Set on a message a strategy creates (summary, marker, snapshot): the engine stores it when the run is not a dry run. */
  create?: MessageKind;
}

export function entrySeq(entry: ViewEntry): number | undefined {
  return 'seq' in entry.item ? entry.item.seq : undefined;
}

export function isSystem(entry: ViewEntry): boolean {
  return entry.message.role === 'system';
}

/** Tokens of a message as shown: content plus tool-call JSON (the seed estimate). */
export function messageTokens(message: CurrentMessage): number {
  return estimateTokens(
    (message.content ?? '') + (message.tool_calls ? JSON.stringify(message.tool_calls) : ''),
  );
}

export function viewTokens(entries: readonly ViewEntry[]): number {
  let total = 0;
  for (const e of entries) total += e.tokens;
  return total;
}

/** An entry for a stored message, shown as is or with replacement content. */
export function entryFromRecord(record: MessageRecord, content?: string): ViewEntry {
  const message: CurrentMessage = {
    role: record.role,
    content: content ?? record.content,
    ...(record.tool_name !== undefined && { tool_name: record.tool_name }),
    ...(record.tool_calls !== undefined && { tool_calls: record.tool_calls }),
    ...(record.tool_call_id !== undefined && { tool_call_id: record.tool_call_id }),
    ...(record.name !== undefined && { name: record.name }),
  };
  return {
    item: content === undefined ? { seq: record.seq } : { seq: record.seq, content },
    message,
    record,
    tokens: content === undefined ? record.tokens : messageTokens(message),
  };
}

export function inlineEntry(message: CurrentMessage): ViewEntry {
  return { item: { inline: message }, message, tokens: messageTokens(message) };
}

/** The same entry shown with other content (the stored message is untouched). */
export function withContent(entry: ViewEntry, content: string): ViewEntry {
  if (entry.record) return entryFromRecord(entry.record, content);
  return inlineEntry({ ...entry.message, content });
}

/** A new message a strategy adds to the context (stored by the engine, tagged with the compaction). */
export function createdEntry(message: CurrentMessage, kind: MessageKind): ViewEntry {
  return { ...inlineEntry(message), create: kind };
}
