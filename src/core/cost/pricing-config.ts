import { z } from 'zod';
import { ConfigError, formatValue } from '../config/config-error';
import type { ModelPrice } from './price-table';

const dollars = z.number().min(0).max(10_000);

/** One model's prices as config.yaml writes them: dollars per million tokens. */
export const modelPriceSchema = z.strictObject({
  input: dollars,
  output: dollars,
  /** Defaults to the input price: a guess that never makes a cost look cheaper than it may be. */
  cache_read: dollars.optional(),
  cache_write: dollars.optional(),
});

export const pricingSchema = z.record(z.string().min(1).max(200), modelPriceSchema);

const ALLOWED =
  'a mapping of model name (or prefix) to { input, output, cache_read?, cache_write? } in US dollars per million tokens (numbers from 0 to 10000)';

/**
 * config.yaml's `pricing:` section: prices that replace or extend the shipped table, e.g.
 *
 *     pricing:
 *       claude-sonnet-4-5: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 }
 *       my-local-model: { input: 0, output: 0 }
 *
 * Errors name the key as written (`pricing.my-model.output`) and what is allowed.
 */
export function parsePricing(written: unknown, file: string): Record<string, ModelPrice> {
  if (written === undefined || written === null) return {};
  const result = pricingSchema.safeParse(written);
  if (!result.success) {
    const issue = result.error.issues[0];
    const segments = issue?.path ?? [];
    const key = ['pricing', ...segments.map(String)].join('.');
    let value: unknown = written;
    for (const s of segments) value = (value as Record<PropertyKey, unknown> | null)?.[s];
    const unknownKeys =
      issue?.code === 'unrecognized_keys' ? `: unknown key ${issue.keys.join(', ')}` : '';
    throw new ConfigError(
      { file, key, value, allowed: ALLOWED },
      `${file}: ${key} = ${formatValue(value)} is not allowed${unknownKeys}: expected ${ALLOWED}`,
    );
  }
  const out: Record<string, ModelPrice> = {};
  for (const [model, p] of Object.entries(result.data)) {
    out[model] = {
      input: p.input,
      output: p.output,
      cache_read: p.cache_read ?? p.input,
      cache_write: p.cache_write ?? p.input,
    };
  }
  return out;
}
