import type { ViewEntry } from './view';
import { inlineEntry } from './view';

/**
 * Providers reject a context where a tool call has no result or a result has no call.
 * Every plan is passed through here: a call whose result is not in the view gets a
 * synthetic result right after its assistant message (inline, never stored), and a result
 * whose call is not in the view is dropped.
 */
export function repairToolPairs(entries: readonly ViewEntry[]): ViewEntry[] {
  const calledIds = new Set<string>();
  const answeredIds = new Set<string>();
  for (const e of entries) {
    for (const call of e.message.tool_calls ?? []) calledIds.add(call.id);
    if (e.message.role === 'tool' && e.message.tool_call_id)
      answeredIds.add(e.message.tool_call_id);
  }
  const out: ViewEntry[] = [];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (
      e.message.role === 'tool' &&
      (!e.message.tool_call_id || !calledIds.has(e.message.tool_call_id))
    )
      continue;
    out.push(e);
    const calls = e.message.tool_calls ?? [];
    if (calls.length === 0) continue;
    // results that follow directly keep their place; missing ones are added after them
    let j = i + 1;
    while (j < entries.length && entries[j]!.message.role === 'tool') {
      out.push(entries[j]!);
      j++;
    }
    for (const call of calls) {
      if (answeredIds.has(call.id)) continue;
      out.push(
        inlineEntry({
          role: 'tool',
          content: `[The result of ${call.function.name} is not in this context.]`,
          tool_call_id: call.id,
          tool_name: call.function.name,
        }),
      );
    }
    i = j - 1;
  }
  return out;
}

/**
 * Moves a cut point back so it never falls between a tool call and its results: the kept
 * part starts at an assistant or user message, never at a tool result.
 */
export function safeCut(entries: readonly ViewEntry[], index: number): number {
  let i = Math.max(0, Math.min(index, entries.length));
  while (i > 0 && i < entries.length && entries[i]!.message.role === 'tool') i--;
  return i;
}
