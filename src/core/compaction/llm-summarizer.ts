import type { Summarizer, SummarizeOptions } from './strategy';
import type { ViewEntry } from './view';
import { fillPrompt, formatEntries } from './format-messages';

/** The part of an LLM client a summarizer needs (src/core/llm's LlmClient fits). */
export interface CompletionClient {
  complete(
    prompt: string,
    options?: { system?: string; signal?: AbortSignal; model?: string; workDir?: string },
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
  const call = (prompt: string, options: SummarizeOptions = {}): Promise<string> => {
    const model = options.model ?? defaults.model ?? undefined;
    return client.complete(prompt, {
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
  };
}
