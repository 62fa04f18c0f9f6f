import { MAX_DIFF_CHARS, type DiffMessage, type DiffSide } from '../../shared/api/compaction-api';
import { entrySeq, viewTokens, type ViewEntry } from '../compaction/view';

/**
 * A context as the diff page gets it: at most `limit` messages, each cut at MAX_DIFF_CHARS
 * (a page cannot diff megabytes of one tool output word by word), with the whole context's
 * size so the page can say what it does not show.
 */
export function toDiffSide(view: readonly ViewEntry[], limit: number): DiffSide {
  return {
    messages: view.slice(0, limit).map(toDiffMessage),
    total: view.length,
    tokens: viewTokens(view),
  };
}

function toDiffMessage(entry: ViewEntry): DiffMessage {
  const { message } = entry;
  const content = message.content ?? '';
  const calls = message.tool_calls
    ?.map((c) => `${c.function.name}(${c.function.arguments})`)
    .join('\n');
  const kind = entry.record?.kind;
  return {
    seq: entrySeq(entry) ?? null,
    role: message.role,
    ...(kind !== undefined && { kind }),
    content: content.slice(0, MAX_DIFF_CHARS),
    ...(calls !== undefined && { toolCalls: calls.slice(0, MAX_DIFF_CHARS) }),
    ...(message.tool_name !== undefined && { toolName: message.tool_name }),
    tokens: entry.tokens,
    clipped: content.length > MAX_DIFF_CHARS || (calls?.length ?? 0) > MAX_DIFF_CHARS,
  };
}
