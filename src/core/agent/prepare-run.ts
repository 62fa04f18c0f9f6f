import type { TaskSpec } from '../../shared/worker-protocol';
import type { AppConfig } from '../config/app-config';
import { secretValues } from '../config/secrets';
import { createLlmClient, resolveModelLimits, type LlmClient } from '../llm';
import type { LlmClientOptions } from '../llm/llm-client';
import { providerSettings } from '../llm/provider-info';
import { CwbError } from '../errors';

export interface PreparedRun {
  config: AppConfig;
  client: LlmClient;
  model: string;
  contextWindow: number;
  maxOutputTokens: number;
}

/**
 * Model and limits from the task's config (loadConfig's, or the one its host handed over):
 * with loading the config, everything that can be wrong before a task exists. Takes the
 * config rather than loading it, so a task process loads config.yaml's loader only when no
 * host handed the config over (task-process.ts). `memory`: the LLM client's hooks for the
 * task process's collections (LlmClientOptions).
 */
export function prepareRun(
  spec: TaskSpec,
  env: NodeJS.ProcessEnv,
  config: AppConfig,
  memory?: LlmClientOptions['memory'],
): PreparedRun {
  const provider = spec.provider ?? config.llm.provider;
  const settings = { ...providerSettings(config.llm, provider) };
  if (spec.model) settings.model = spec.model;
  if (spec.baseUrl) settings.base_url = spec.baseUrl.replace(/\/+$/, '');
  const llm = { ...config.llm, provider, [provider]: settings };
  const model = settings.model;
  if (!model) {
    throw new CwbError(
      'bad_input',
      `no model chosen: pass --model or set llm.${provider}.model in config.yaml`,
    );
  }
  const limits = resolveModelLimits(
    model,
    {
      ...(settings.context_length !== undefined && { context_length: settings.context_length }),
      ...(settings.max_output_tokens !== undefined && {
        max_output_tokens: settings.max_output_tokens,
      }),
    },
    provider,
  );
  const client = createLlmClient(llm, {
    env,
    secrets: secretValues(config),
    ...(memory && { memory }),
  });
  return {
    config,
    client,
    model,
    contextWindow: limits.contextWindow,
    maxOutputTokens: limits.maxOutputTokens,
  };
}
