import { useCallback, useEffect, useRef, useState } from 'react';
import type { SearchSessionsInput, SessionSearchResult } from '../../../../shared/api/search-api';
import { useApi } from '../../api/api-context';
import { useDebounced } from '../../hooks/use-debounced';
import { latestOnly, type LatestOnly } from './latest-only';

export type SessionSearchState =
  | { kind: 'idle' }
  | { kind: 'loading'; previous: SessionSearchResult | null }
  | { kind: 'ready'; result: SessionSearchResult; busy: boolean }
  | { kind: 'error'; message: string };

const DEBOUNCE_MS = 250;

/**
 * The message search as the fields ask for it: debounced while typing, one call at a time
 * and only the newest (latest-only.ts), the last answer kept on screen while the next loads.
 */
export function useSessionSearch(input: SearchSessionsInput | null): {
  state: SessionSearchState;
  retry(): void;
  /** Search now, without waiting for the typing to settle. */
  flush(): void;
} {
  const api = useApi();
  const key = input ? JSON.stringify(input) : '';
  const settled = useDebounced(key, DEBOUNCE_MS);
  const [state, setState] = useState<SessionSearchState>({ kind: 'idle' });
  const shown = useRef<SessionSearchResult | null>(null);
  const runner = useRef<LatestOnly<string> | null>(null);
  runner.current ??= latestOnly(
    (k: string) => api.searchSessions(JSON.parse(k) as SearchSessionsInput),
    (r) => {
      if (r.ok) {
        shown.current = r.value;
        setState({ kind: 'ready', result: r.value, busy: false });
      } else {
        const err = r.error;
        setState({ kind: 'error', message: err instanceof Error ? err.message : String(err) });
      }
    },
  );
  const sent = useRef('');
  const send = useCallback((k: string): void => {
    sent.current = k;
    if (!k) {
      runner.current!.cancel();
      shown.current = null;
      setState({ kind: 'idle' });
      return;
    }
    setState(
      shown.current
        ? { kind: 'ready', result: shown.current, busy: true }
        : { kind: 'loading', previous: null },
    );
    runner.current!.run(k);
  }, []);
  useEffect(() => {
    if (settled !== sent.current) send(settled);
  }, [settled, send]);
  // Clearing the field shows the idle page at once, without waiting for the debounce.
  useEffect(() => {
    if (!key && sent.current) send('');
  }, [key, send]);
  useEffect(() => () => runner.current?.cancel(), []);
  return {
    state,
    retry: () => send(key),
    flush: () => {
      if (key !== sent.current) send(key);
    },
  };
}
