import type { Summarizer, SummarizeOptions } from './strategy';
import type { ViewEntry } from './view';
import type { TokenUsage } from '../../shared/task-types';
import { fillPrompt, formatEntries } from './format-messages';

/** The part of an LLM client a summarizer needs (src/core/llm's LlmClient fits). */
export interface CompletionClient {
  complete(
    prompt: string,
    options?: {
      system?: string;
      signal?: AbortSignal;
      model?: string;
      workDir?: string;
      onUsage?: (usage: TokenUsage) => void;
    },
  ): Promise<string>;
}

/**
 * Summaries written by the configured model (or the compaction model, seed 002 §2.6.2).
 * The client writes each request to a file and streams it, like every other call.
 */
export function llmSummarizer(
  client: CompletionClient,
  defaults: { model?: string | null; workDir?: string } = {},
): Summarizer {
  let usage: TokenUsage | undefined;
  const add = (u: TokenUsage): void => {
    usage = usage ? sumUsage(usage, u) : { ...u };
  };
  const call = (prompt: string, options: SummarizeOptions = {}): Promise<string> => {
    const model = options.model ?? defaults.model ?? undefined;
    return client.complete(prompt, {
      onUsage: add,
      ...(options.system !== undefined && { system: options.system }),
      ...(options.signal && { signal: options.signal }),
      ...(model && { model }),
      ...(defaults.workDir && { workDir: defaults.workDir }),
    });
  };
  return {
    kind: 'llm',
    summarize: (entries: readonly ViewEntry[], prompt: string, options?: SummarizeOptions) =>
      call(fillPrompt(prompt, formatEntries(entries)), options),
    complete: call,
    takeUsage: () => {
      const taken = usage;
      usage = undefined;
      return taken;
    },
  };
}

function sumUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_creation_tokens: a.cache_creation_tokens + b.cache_creation_tokens,
    cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
}
