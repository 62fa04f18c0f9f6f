import type { SearchSessionsInput } from '../../../../shared/api/search-api';
import { dayStartIso } from '../../format/dates';
import { OWN_AGENT } from '../browser/task-query';
import type { MessageSearchValues } from './search-store';

/** The API's input for the fields on screen, or null while there is nothing to search for. */
export function toSearchInput(v: MessageSearchValues, limit: number): SearchSessionsInput | null {
  const query = v.query.trim();
  if (!query) return null;
  const since = dayStartIso(v.since);
  const tool = v.tool.trim();
  return {
    query: query.slice(0, 500),
    exact: v.exact,
    limit,
    ...(v.agent && { agent: v.agent === OWN_AGENT ? '' : v.agent }),
    ...(v.repo && { repo: v.repo }),
    ...(v.role && { role: v.role }),
    ...(tool && { tool }),
    // The day is a local calendar day; the API takes an instant.
    ...(since && { since }),
  };
}
