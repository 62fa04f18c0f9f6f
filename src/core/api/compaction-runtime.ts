import type { AppConfig, LlmProvider } from '../config/app-config';
import { secretValues } from '../config/secrets';
import type { TaskRow } from '../../shared/task-types';
import { createLlmClient, resolveModelLimits } from '../llm';
import { providerSettings } from '../llm/provider-info';
import { extractiveSummarizer } from '../compaction/extractive-digest';
import { llmSummarizer } from '../compaction/llm-summarizer';
import type { Summarizer } from '../compaction/strategy';

/** The window assumed for a task whose model is unknown (imported from another agent, say). */
export const UNKNOWN_CONTEXT_WINDOW = 128_000;
const PROVIDERS: readonly LlmProvider[] = ['openai', 'ollama', 'lmstudio'];

export interface CompactionRuntime {
  contextWindow: number;
  maxOutputTokens: number;
  summarizer: Summarizer;
}

/**
 * What a compaction of an idle task runs with: the task's own model limits, and summaries
 * written by the configured model — or by the extractive digest when no model is
 * configured, so compaction works offline (DESIGN.md §5.6).
 */
export function compactionRuntime(
  config: AppConfig,
  row: TaskRow,
  env: NodeJS.ProcessEnv,
  workDir: string,
): CompactionRuntime {
  const provider = PROVIDERS.find((p) => p === row.llm_provider) ?? config.llm.provider;
  const settings = providerSettings(config.llm, provider);
  const limits = modelLimits(row, settings.model);
  if (!settings.model) return { ...limits, summarizer: extractiveSummarizer };
  const client = createLlmClient(
    { ...config.llm, provider },
    { env, secrets: secretValues(config) },
  );
  const model = config.compaction.model ?? (row.llm_provider === provider ? row.model : null);
  return { ...limits, summarizer: llmSummarizer(client, { model, workDir }) };
}

function modelLimits(
  row: TaskRow,
  configuredModel: string | null,
): { contextWindow: number; maxOutputTokens: number } {
  const model = row.model ?? configuredModel ?? '';
  try {
    const limits = resolveModelLimits(model, {
      ...(row.context_length !== null && { context_length: row.context_length }),
    });
    return { contextWindow: limits.contextWindow, maxOutputTokens: limits.maxOutputTokens };
  } catch {
    return { contextWindow: row.context_length ?? UNKNOWN_CONTEXT_WINDOW, maxOutputTokens: 4096 };
  }
}
