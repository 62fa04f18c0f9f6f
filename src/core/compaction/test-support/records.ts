import type { MessageKind, MessageRecord, MessageRole, ToolCall } from '../../../shared/task-types';
import { estimateTokens } from '../../tokens/estimate';
import type { ToolOutputStore } from '../../store/tool-output-store';
import type { StrategyContext } from '../strategy';
import { entryFromRecord, type ViewEntry } from '../view';

/** What a test says about a message; the rest of the record is filled in. */
export interface RecordInput {
  role: MessageRole;
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
  tool_name?: string;
  output_ref?: string;
  kind?: MessageKind;
  compaction_id?: number;
}

/** A stored message as messages.jsonl would hold it (tokens: the seed estimate). */
export function makeRecord(seq: number, input: RecordInput): MessageRecord {
  const counted =
    (input.content ?? '') + (input.tool_calls ? JSON.stringify(input.tool_calls) : '');
  const tokens = estimateTokens(counted);
  return {
    seq,
    timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, seq)).toISOString(),
    tokens,
    tokens_o200k: tokens,
    ...input,
  };
}

export function toolCall(id: string, name: string, args: unknown = {}): ToolCall {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}

/** Builds a view of stored messages, numbering them from 1. */
export class ViewBuilder {
  readonly entries: ViewEntry[] = [];
  private seq = 0;
  private calls = 0;

  add(input: RecordInput): ViewEntry {
    const entry = entryFromRecord(makeRecord(++this.seq, input));
    this.entries.push(entry);
    return entry;
  }

  system(content: string): ViewEntry {
    return this.add({ role: 'system', content });
  }

  user(content: string): ViewEntry {
    return this.add({ role: 'user', content });
  }

  assistant(content: string): ViewEntry {
    return this.add({ role: 'assistant', content });
  }

  /** An assistant message calling one tool, followed by the result. */
  call(
    name: string,
    args: unknown,
    result: string,
    extra: Partial<RecordInput> = {},
  ): { call: ViewEntry; result: ViewEntry } {
    const id = `call_${++this.calls}`;
    const call = this.add({
      role: 'assistant',
      content: null,
      tool_calls: [toolCall(id, name, args)],
    });
    const res = this.add({
      role: 'tool',
      content: result,
      tool_call_id: id,
      tool_name: name,
      ...extra,
    });
    return { call, result: res };
  }

  /** One assistant message calling several tools at once, followed by their results. */
  parallel(calls: { name: string; args?: unknown; result: string }[]): ViewEntry[] {
    const ids = calls.map(() => `call_${++this.calls}`);
    const out = [
      this.add({
        role: 'assistant',
        content: null,
        tool_calls: calls.map((c, i) => toolCall(ids[i]!, c.name, c.args ?? {})),
      }),
    ];
    calls.forEach((c, i) => {
      out.push(
        this.add({ role: 'tool', content: c.result, tool_call_id: ids[i]!, tool_name: c.name }),
      );
    });
    return out;
  }
}

/** OpenAI chat messages (tau-bench `traj`) as stored records, numbered from 1. */
export function openAiToRecords(messages: readonly unknown[]): MessageRecord[] {
  return messages.map((raw, i) => {
    const m = raw as {
      role: MessageRole;
      content?: string | null;
      tool_calls?: ToolCall[];
      tool_call_id?: string;
      name?: string;
    };
    return makeRecord(i + 1, {
      role: m.role,
      content: m.content ?? null,
      ...(m.tool_calls && { tool_calls: m.tool_calls }),
      ...(m.tool_call_id !== undefined && { tool_call_id: m.tool_call_id }),
      ...(m.role === 'tool' && m.name !== undefined && { tool_name: m.name, name: m.name }),
    });
  });
}

/**
 * What is wrong with a view's tool pairing: every assistant message with calls must be
 * followed directly by exactly one result per call, and no result may stand anywhere else.
 */
export function pairProblems(view: readonly ViewEntry[]): string[] {
  const problems: string[] = [];
  for (let i = 0; i < view.length; i++) {
    const m = view[i]!.message;
    if (m.role === 'tool') {
      problems.push(`result ${m.tool_call_id ?? '?'} at ${i} follows no call`);
      continue;
    }
    const calls = m.tool_calls ?? [];
    if (calls.length === 0) continue;
    const answered: string[] = [];
    let j = i + 1;
    while (j < view.length && view[j]!.message.role === 'tool') {
      answered.push(view[j]!.message.tool_call_id ?? '?');
      j++;
    }
    const wanted = calls.map((c) => c.id).sort();
    if (JSON.stringify([...answered].sort()) !== JSON.stringify(wanted)) {
      problems.push(
        `calls ${wanted.join(',')} at ${i} answered by ${answered.join(',') || 'nothing'}`,
      );
    }
    i = j - 1;
  }
  return problems;
}

/** A StrategyContext over `view` for a strategy test; no LLM (the summarizer is never called). */
export function strategyContext(
  view: readonly ViewEntry[],
  toolOutputs: ToolOutputStore,
  overrides: Partial<StrategyContext> = {},
): StrategyContext {
  return {
    view,
    contextWindow: 128_000,
    maxOutputTokens: 4096,
    lastUsageTokens: undefined,
    reason: 'manual',
    summarizer: {
      kind: 'extractive',
      summarize: () => Promise.reject(new Error('these strategies call no summarizer')),
    },
    toolOutputs,
    dryRun: false,
    ...overrides,
  };
}
