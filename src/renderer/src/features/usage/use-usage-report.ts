import { useEffect, useState } from 'react';
import type { UsageReport } from '../../../../shared/api/usage-api';
import { useApi } from '../../api/api-context';
import type { UsageView } from './usage-period';

export type UsageState =
  | { kind: 'loading'; previous: UsageReport | null }
  | { kind: 'ready'; report: UsageReport }
  | { kind: 'error'; message: string };

/** The host's zone is the CLI's; the page counts days where its reader is. */
function timeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    return undefined;
  }
}

/** The usage report of a view; an answer to a view no longer shown is dropped. */
export function useUsageReport(view: UsageView): { state: UsageState; reload(): void } {
  const api = useApi();
  const [state, setState] = useState<UsageState>({ kind: 'loading', previous: null });
  const [attempt, setAttempt] = useState(0);
  const key = JSON.stringify([view.since, view.until, view.by, view.split]);
  useEffect(() => {
    let current = true;
    setState((s) => ({ kind: 'loading', previous: s.kind === 'ready' ? s.report : null }));
    const zone = timeZone();
    api
      .usageReport({
        by: view.by,
        split: view.split,
        top: 10,
        ...(view.since && { since: view.since }),
        ...(view.until && { until: view.until }),
        ...(zone && { timeZone: zone }),
      })
      .then(
        (report) => current && setState({ kind: 'ready', report }),
        (err: unknown) =>
          current &&
          setState({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
      );
    return () => {
      current = false;
    };
    // The key holds every field of the view the call uses.
  }, [api, key, attempt]);
  return { state, reload: () => setAttempt((n) => n + 1) };
}
