import { z } from 'zod';
import { operation } from './operation';

export const testProviderInput = z.strictObject({
  provider: z.enum(['openai', 'ollama', 'lmstudio']),
  /** A base URL typed in the settings form but not saved yet; default: the configured one. */
  baseUrl: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional(),
});

/** The provider answered (with its models when it lists them), or why not. */
export type ProviderTestResult = { ok: true; models: string[] } | { ok: false; error: string };

export const providerTestOperations = {
  testProvider: operation(testProviderInput).returns<ProviderTestResult>(),
};
