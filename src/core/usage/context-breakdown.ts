import type {
  ContextBreakdown,
  ContextPart,
  ContextPartKind,
} from '../../shared/api/task-view-api';
import { CONTEXT_PART_KINDS } from '../../shared/api/task-view-api';
import { readView, readViewAt } from '../compaction/read-view';
import type { ViewEntry } from '../compaction/view';
import { REASONING_NAME } from '../import/types';
import { estimateTokens } from '../tokens/estimate';

/** A slice of one message that belongs to one part. */
interface Slice {
  kind: ContextPartKind;
  tool?: string;
  weight: number;
}

/**
 * What fills a task's context, now or right after message `at`, split into parts that add
 * up to its total exactly. `toolDefinitions` is what the task sends besides its messages
 * (our own agent's tool schemas); other agents' sessions do not record theirs, which the
 * reported figure of their last call shows as the difference.
 */
export function contextBreakdown(
  dir: string,
  options: { at?: number; top?: number; toolDefinitions?: string | null } = {},
): ContextBreakdown {
  const { view, lastSeq } = options.at === undefined ? readView(dir) : readViewAt(dir, options.at);
  const top = options.top ?? 8;
  const parts = new Map<string, ContextPart>();
  const part = (kind: ContextPartKind, tool?: string): ContextPart => {
    const key = tool === undefined ? kind : `${kind}:${tool}`;
    let p = parts.get(key);
    if (!p) {
      p = { kind, ...(tool !== undefined && { tool }), tokens: 0, messages: 0, biggest: [] };
      parts.set(key, p);
    }
    return p;
  };
  let reported: ContextBreakdown['reported'] = null;
  // The transcript's tokens before the last call that reported its input.
  let before = 0;
  let running = 0;
  for (const entry of view) {
    const usage = entry.record?.usage;
    if (usage && entry.message.role === 'assistant') {
      reported = {
        tokens: usage.input_tokens + usage.cache_read_tokens + usage.cache_creation_tokens,
        seq: entry.record!.seq,
      };
      before = running;
    }
    running += entry.tokens;
    const slices = slicesOf(entry);
    const shares = apportion(
      entry.tokens,
      slices.map((s) => s.weight),
    );
    slices.forEach((slice, i) => {
      const tokens = shares[i]!;
      if (tokens === 0 && slices.length > 1) return;
      const p = part(slice.kind, slice.tool);
      p.tokens += tokens;
      p.messages += 1;
      keepBiggest(p, top, {
        seq: entry.record?.seq ?? null,
        tokens,
        preview: previewOf(entry, slice.kind),
      });
    });
  }
  let definitions = 0;
  if (options.toolDefinitions) {
    definitions = estimateTokens(options.toolDefinitions);
    part('tool-definitions').tokens = definitions;
  }
  const unrecorded = reported ? reported.tokens - before - definitions : 0;
  if (unrecorded > 0) part('unrecorded').tokens = unrecorded;
  const ordered = [...parts.values()].sort(
    (a, b) =>
      CONTEXT_PART_KINDS.indexOf(a.kind) - CONTEXT_PART_KINDS.indexOf(b.kind) ||
      b.tokens - a.tokens,
  );
  return {
    at_seq: options.at === undefined ? null : Math.min(options.at, lastSeq),
    last_seq: lastSeq,
    total_tokens: ordered.reduce((sum, p) => sum + p.tokens, 0),
    parts: ordered,
    reported,
  };
}

function slicesOf(entry: ViewEntry): Slice[] {
  const { message, record } = entry;
  const content = message.content ?? '';
  if (record?.kind && record.kind !== 'message') return [{ kind: 'summary', weight: 1 }];
  switch (message.role) {
    case 'system':
      return [{ kind: 'system', weight: 1 }];
    case 'tool':
      return [{ kind: 'tool-output', tool: message.tool_name ?? 'unknown', weight: 1 }];
    case 'user':
      return [{ kind: isAttachment(entry) ? 'attachments' : 'user', weight: 1 }];
    default: {
      if (message.name === REASONING_NAME) return [{ kind: 'thinking', weight: 1 }];
      const calls = message.tool_calls?.length ? JSON.stringify(message.tool_calls) : '';
      const slices: Slice[] = [];
      if (content !== '' || calls === '')
        slices.push({ kind: 'assistant', weight: Math.max(1, estimateTokens(content)) });
      if (calls !== '') slices.push({ kind: 'tool-calls', weight: estimateTokens(calls) });
      return slices;
    }
  }
}

/**
 * Files and notes an agent attached to the conversation rather than typed by the user
 * (Claude Code's re-attached files after a compaction, IDE selections, hook output).
 */
function isAttachment(entry: ViewEntry): boolean {
  const name = entry.message.name ?? '';
  if (name.startsWith('attachment')) return true;
  const text = (entry.message.content ?? '').trimStart();
  return /^<(system-reminder|ide_selection|ide_opened_file|attachment)\b/.test(text);
}

/** `total` split in proportion to `weights`, rounded so the shares add up to it exactly. */
export function apportion(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (weights.length === 0) return [];
  if (sum <= 0) return weights.map((_, i) => (i === 0 ? total : 0));
  const raw = weights.map((w) => (total * w) / sum);
  const shares = raw.map(Math.floor);
  let left = total - shares.reduce((a, b) => a + b, 0);
  const order = raw
    .map((r, i) => ({ i, rest: r - Math.floor(r) }))
    .sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    shares[i]! += 1;
    left -= 1;
  }
  return shares;
}

function keepBiggest(p: ContextPart, top: number, item: ContextPart['biggest'][number]): void {
  if (top === 0) return;
  const list = p.biggest;
  if (list.length === top && list[list.length - 1]!.tokens >= item.tokens) return;
  let i = list.length;
  while (i > 0 && list[i - 1]!.tokens < item.tokens) i--;
  list.splice(i, 0, item);
  if (list.length > top) list.pop();
}

function previewOf(entry: ViewEntry, kind: ContextPartKind): string {
  const text =
    kind === 'tool-calls'
      ? (entry.message.tool_calls ?? [])
          .map((c) => `${c.function.name} ${c.function.arguments}`)
          .join(' · ')
      : (entry.message.content ?? '');
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 140 ? `${line.slice(0, 140)}…` : line;
}
