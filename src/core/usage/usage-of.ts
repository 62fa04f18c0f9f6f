import type { UsageReport, UsageReportInput } from '../../shared/api/usage-api';
import { usageReportInput } from '../../shared/api/usage-api';
import type { PriceBook } from '../cost/price-book';
import { badInput } from '../errors';
import { keepSearchIndexCurrent } from '../search/session-search';
import type { ContextStore } from '../store/context-store';
import { isTimeZone } from './usage-days';
import { usageReport } from './usage-report';

/** How long a report may spend reading our own tasks' new messages for their hours first. */
const USAGE_CATCH_UP_MS = 250;

/**
 * Usage over time of a contexts folder: the one entry the API and `cwb usage` use. Our own
 * tasks' hours come from their messages, which the search index's catch-up reads.
 */
export function usageOf(
  store: ContextStore,
  book: PriceBook,
  input: UsageReportInput,
  options: { catchUpMs?: number } = {},
): UsageReport {
  const parsed = usageReportInput.parse(input);
  if (parsed.timeZone && !isTimeZone(parsed.timeZone))
    throw badInput(`usage: unknown time zone ${JSON.stringify(parsed.timeZone)}`);
  if (parsed.since && parsed.until && parsed.since > parsed.until)
    throw badInput(`usage: --since ${parsed.since} is after --until ${parsed.until}`);
  keepSearchIndexCurrent(store, options.catchUpMs ?? USAGE_CATCH_UP_MS);
  return usageReport(store.db, book, parsed);
}
