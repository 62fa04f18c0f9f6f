import type { CurrentMessage, MessageRecord, ToolCall } from '../../../shared/task-types';
import type { StrategyContext, SummarizeOptions, Summarizer } from '../strategy';
import type { ViewEntry } from '../view';
import { entryFromRecord, messageTokens } from '../view';
import { ToolOutputStore } from '../../store/tool-output-store';

/**
 * Builds a view the way the engine reads one: stored MessageRecords (seq, seed-estimate
 * tokens) wrapped with entryFromRecord. Calls and their results are added together so a
 * test reads like the session it stands for.
 */
export class ViewBuilder {
  readonly entries: ViewEntry[] = [];
  private seq = 0;
  private callNo = 0;

  add(message: CurrentMessage): this {
    this.seq++;
    const record: MessageRecord = {
      ...message,
      seq: this.seq,
      timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, this.seq)).toISOString(),
      tokens: messageTokens(message),
      tokens_o200k: messageTokens(message),
    };
    this.entries.push(entryFromRecord(record));
    return this;
  }

  system(content: string): this {
    return this.add({ role: 'system', content });
  }

  user(content: string): this {
    return this.add({ role: 'user', content });
  }

  assistant(content: string | null): this {
    return this.add({ role: 'assistant', content });
  }

  /** An assistant message with tool calls and no results (yet). */
  calls(content: string | null, ...calls: { name: string; args: unknown }[]): ToolCall[] {
    const toolCalls = calls.map((c): ToolCall => ({
      id: `call_${++this.callNo}`,
      type: 'function',
      function: { name: c.name, arguments: JSON.stringify(c.args) },
    }));
    this.add({ role: 'assistant', content, tool_calls: toolCalls });
    return toolCalls;
  }

  result(call: ToolCall, content: string): this {
    return this.add({
      role: 'tool',
      content,
      tool_call_id: call.id,
      tool_name: call.function.name,
    });
  }

  /** One assistant call answered by one result. */
  tool(name: string, args: unknown, result: string, content: string | null = null): this {
    const [call] = this.calls(content, { name, args });
    return this.result(call!, result);
  }

  build(): ViewEntry[] {
    return [...this.entries];
  }
}

export interface FakeSummarizer extends Summarizer {
  /** Prompts given to summarize/complete, in order. */
  prompts: string[];
  options: (SummarizeOptions | undefined)[];
  /** Entries given to summarize. */
  summarized: (readonly ViewEntry[])[];
}

export interface FakeOptions {
  kind?: 'llm' | 'extractive';
  /** The reply; a function sees the prompt. */
  reply?: string | ((prompt: string) => string);
  /** Thrown instead of replying. */
  error?: Error;
  /** Whether `complete` exists (default: for llm). */
  withComplete?: boolean;
}

/** A Summarizer that records what it is asked and answers from the test. */
export function fakeSummarizer(options: FakeOptions = {}): FakeSummarizer {
  const kind = options.kind ?? 'llm';
  const fake: FakeSummarizer = {
    kind,
    prompts: [],
    options: [],
    summarized: [],
    summarize(entries, prompt, opts) {
      fake.summarized.push(entries);
      return answer(prompt, opts);
    },
  };
  function answer(prompt: string, opts: SummarizeOptions | undefined): Promise<string> {
    fake.prompts.push(prompt);
    fake.options.push(opts);
    if (options.error) return Promise.reject(options.error);
    const reply = options.reply ?? 'A short summary.';
    return Promise.resolve(typeof reply === 'function' ? reply(prompt) : reply);
  }
  if (options.withComplete ?? kind === 'llm') fake.complete = answer;
  return fake;
}

export function strategyContext(
  view: readonly ViewEntry[],
  overrides: Partial<StrategyContext> = {},
): StrategyContext {
  return {
    view,
    contextWindow: 100_000,
    maxOutputTokens: 4_000,
    lastUsageTokens: undefined,
    reason: 'manual',
    summarizer: fakeSummarizer(),
    // Never touched by these strategies; constructing it does not touch the disk.
    toolOutputs: new ToolOutputStore('/nonexistent-task'),
    dryRun: false,
    ...overrides,
  };
}

/** Tool calls in a message list that are not answered by the tool messages right after them. */
export function unansweredCalls(messages: readonly CurrentMessage[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const calls = messages[i]!.tool_calls ?? [];
    if (calls.length === 0) continue;
    const answered = new Set<string>();
    for (let j = i + 1; j < messages.length && messages[j]!.role === 'tool'; j++) {
      answered.add(messages[j]!.tool_call_id ?? '');
    }
    for (const c of calls) if (!answered.has(c.id)) out.push(c.id);
  }
  return out;
}

/** Every call has its results right after it and every result follows its call. */
export function pairsIntact(entries: readonly ViewEntry[]): boolean {
  const messages = entries.map((e) => e.message);
  if (unansweredCalls(messages).length > 0) return false;
  for (let i = 0; i < messages.length; i++) {
    if (messages[i]!.role !== 'tool') continue;
    let j = i - 1;
    while (j >= 0 && messages[j]!.role === 'tool') j--;
    const owner = messages[j];
    if (!owner?.tool_calls?.some((c) => c.id === messages[i]!.tool_call_id)) return false;
  }
  return true;
}
