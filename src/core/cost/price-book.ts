import type { CostFigure } from '../../shared/cost-types';
import type { ModelRate } from '../db/task-index';
import {
  PRICE_TABLE_VERSION,
  SHIPPED_PRICES,
  sortEntries,
  type ModelPrice,
  type PriceEntry,
} from './price-table';

/** Token counts as tasks.db and providers report them (input excludes cache reads and writes). */
export interface UsageCounts {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_creation_tokens: number;
}

const PER_TOKEN = 1 / 1_000_000;

/** The name a model is matched by: lower case, without a `provider/` part. */
export function modelKey(model: string): string {
  const lower = model.trim().toLowerCase();
  return lower.slice(lower.lastIndexOf('/') + 1);
}

/**
 * The shipped price table with the config's overrides on top. A model is priced by the
 * longest prefix it starts with; an override with the same prefix replaces the shipped
 * entry, and a longer one wins over it for the models it names.
 */
export class PriceBook {
  readonly entries: readonly PriceEntry[];
  readonly version = PRICE_TABLE_VERSION;
  readonly overrides: number;

  constructor(overrides: Record<string, ModelPrice> = {}) {
    const own = Object.entries(overrides).map(([model, price]) => ({
      prefix: modelKey(model),
      ...price,
      source: 'config.yaml pricing',
    }));
    const replaced = new Set(own.map((e) => e.prefix));
    this.entries = sortEntries([...own, ...SHIPPED_PRICES.filter((e) => !replaced.has(e.prefix))]);
    this.overrides = own.length;
  }

  /** The entry that prices `model`, or undefined when neither the table nor the config knows it. */
  priceOf(model: string | null | undefined): PriceEntry | undefined {
    if (!model) return undefined;
    const key = modelKey(model);
    return this.entries.find((e) => key.startsWith(e.prefix));
  }

  /** What `usage` cost on `model`; unknown (never 0) when the model or the usage is missing. */
  costOf(usage: UsageCounts, model: string | null | undefined): CostFigure {
    const tokens =
      usage.input_tokens +
      usage.output_tokens +
      usage.cache_read_tokens +
      usage.cache_creation_tokens;
    if (tokens === 0) return { usd: null, unknown: 'no_usage' };
    if (!model) return { usd: null, unknown: 'no_model' };
    const price = this.priceOf(model);
    if (!price) return { usd: null, unknown: 'unknown_model' };
    return {
      usd:
        (usage.input_tokens * price.input +
          usage.output_tokens * price.output +
          usage.cache_read_tokens * price.cache_read +
          usage.cache_creation_tokens * price.cache_write) *
        PER_TOKEN,
    };
  }

  /**
   * Per-token rates of the given models (the distinct names in the task index), for the
   * index to sort and sum by cost; a model without a price gets none, so its cost stays
   * unknown there too.
   */
  rates(models: readonly (string | null)[]): ModelRate[] {
    const rates: ModelRate[] = [];
    for (const model of models) {
      const price = model ? this.priceOf(model) : undefined;
      if (!model || !price) continue;
      rates.push({
        model,
        input: price.input * PER_TOKEN,
        output: price.output * PER_TOKEN,
        cache_read: price.cache_read * PER_TOKEN,
        cache_write: price.cache_write * PER_TOKEN,
      });
    }
    return rates;
  }
}
