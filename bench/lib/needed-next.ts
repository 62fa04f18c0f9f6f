import type { CurrentMessage } from '../../src/shared/task-types';
import { textFacts } from '../../src/core/facts/text-facts';
import { argPaths, parseArgs } from '../../src/core/facts/tool-actions';

/**
 * FRR ("needed next", issue 30) as the compaction-hook group measures it until the facts
 * module's own lands: the paths, names, numbers with units, URLs and references the agent
 * typed after the compaction (its text and tool-call argument values, never tool outputs)
 * that the compacted span held, and the share of them present verbatim in the new context.
 */
const REFERENCE = /(?<![\w&/])#\d{1,6}\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/g;

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === 'object')
    for (const v of Object.values(value)) strings(v, out);
  return out;
}

function addFacts(text: string, into: Set<string>): void {
  const f = textFacts(text);
  const refs = [...text.matchAll(REFERENCE)].map((m) => m[0]);
  for (const x of [...f.urls, ...f.paths, ...f.numbers, ...f.identifiers, ...refs]) {
    if (x.trim().length >= 3) into.add(x.trim());
  }
}

export function typedAfter(messages: readonly CurrentMessage[]): Set<string> {
  const typed = new Set<string>();
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    addFacts(m.content ?? '', typed);
    for (const call of m.tool_calls ?? []) {
      const args = parseArgs(call.function.arguments);
      for (const p of argPaths(args)) typed.add(p.trim());
      for (const v of args ? strings(args) : [call.function.arguments]) addFacts(v, typed);
    }
  }
  return typed;
}

export function spanText(messages: readonly CurrentMessage[]): string {
  return messages
    .map((m) =>
      [
        m.content ?? '',
        ...(m.tool_calls ?? []).map((c) => `${c.function.name} ${c.function.arguments}`),
      ].join('\n'),
    )
    .join('\n');
}

/** kept / needed (null when the agent needed nothing of the span). */
export function frr(needed: readonly string[], context: string): number | null {
  if (needed.length === 0) return null;
  return needed.filter((t) => context.includes(t)).length / needed.length;
}
