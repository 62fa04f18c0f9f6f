import type { LoadedConfig } from '../config/load-config';
import type { ModelRate, TaskIndex } from '../db/task-index';
import { PriceBook } from './price-book';

export { PriceBook, modelKey, type UsageCounts } from './price-book';
export { PRICE_TABLE_SOURCE, PRICE_TABLE_VERSION, type ModelPrice } from './price-table';
export { rowCost, taskCost, type CompactionUsageRecord } from './task-cost';
export { parsePricing } from './pricing-config';

/**
 * The price book a host uses: the shipped table with the config's `pricing:` on top. A
 * config that cannot be read leaves the shipped table (the settings page reports the error;
 * a listing should not fail over prices).
 */
export function priceBookOf(load: () => LoadedConfig): PriceBook {
  try {
    return new PriceBook(load().pricing ?? {});
  } catch {
    return new PriceBook();
  }
}

/** The rates the index sorts and sums the tasks of `repo` by. */
export function costRates(repo: TaskIndex, book: PriceBook): ModelRate[] {
  return book.rates(repo.distinctModels());
}
