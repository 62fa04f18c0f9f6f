import { useCallback, useEffect, useState } from 'react';
import type { CompactionDiff } from '../../../../shared/api/compaction-api';
import { useApi } from '../../api/api-context';

export type DiffState =
  | { kind: 'loading' }
  | { kind: 'ready'; diff: CompactionDiff }
  | { kind: 'error'; message: string };

/** One compaction with its before and after contexts; `reload` asks again (after an error). */
export function useCompactionDiff(uuid: string, id: number): [DiffState, () => void] {
  const api = useApi();
  const [state, setState] = useState<DiffState>({ kind: 'loading' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    setState({ kind: 'loading' });
    api.compactionDiff({ uuid, id }).then(
      (diff) => live && setState({ kind: 'ready', diff }),
      (err: unknown) =>
        live &&
        setState({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      live = false;
    };
  }, [api, uuid, id, attempt]);
  return [state, useCallback(() => setAttempt((n) => n + 1), [])];
}
