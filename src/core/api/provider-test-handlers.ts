import type { WorkbenchHandlers } from '../../shared/api/workbench-api';
import { secretValues } from '../config/secrets';
import { createLlmClient } from '../llm/llm-client';
import type { ServiceContext } from './service-context';

/** Settings' connection test: the LLM client's ping with the configured key (never echoed). */
export function providerTestHandlers(ctx: ServiceContext): Pick<WorkbenchHandlers, 'testProvider'> {
  return {
    testProvider: async ({ provider, baseUrl }) => {
      const { config } = ctx.loadConfig();
      const llm = {
        ...config.llm,
        provider,
        ...(baseUrl && {
          [provider]: { ...config.llm[provider], base_url: baseUrl },
        }),
      };
      const client = createLlmClient(llm, {
        env: ctx.env,
        secrets: secretValues(config),
        pingTimeoutMs: 8_000,
      });
      const result = await client.ping();
      return result.ok ? { ok: true, models: result.models ?? [] } : result;
    },
  };
}
