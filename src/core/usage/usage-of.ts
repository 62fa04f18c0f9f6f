import type { UsageReport, UsageReportInput } from '../../shared/api/usage-api';
import { usageReportInput } from '../../shared/api/usage-api';
import type { PriceBook } from '../cost/price-book';
import { badInput } from '../errors';
import { keepSearchIndexCurrent } from '../search/session-search';
import type { ContextStore } from '../store/context-store';
import { isTimeZone } from './usage-days';
import { PgTaskRepository } from '../db/pg-task-repository';
import { pgUsageRows } from '../db/pg-usage-rows';
import { sqliteUsageRows, usageReportOf } from './usage-report';

/** How long a report may spend reading our own tasks' new messages for their hours first. */
const USAGE_CATCH_UP_MS = 250;

/**
 * Usage over time of a contexts folder's index (tasks.db, or a fleet's PostgreSQL: every
 * host's tasks): the one entry the API and `cwb usage` use. Our own
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
  const rows =
    store.repo instanceof PgTaskRepository ? pgUsageRows(store.repo) : sqliteUsageRows(store.db);
  return usageReportOf(rows, book, parsed);
}
