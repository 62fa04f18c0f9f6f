import { useEffect, useState } from 'react';
import type { CompactionRecordInfo } from '../../../../shared/api/compaction-api';
import { useApi } from '../../api/api-context';

export type CompactionsState =
  | { kind: 'loading' }
  | { kind: 'ready'; records: CompactionRecordInfo[] }
  | { kind: 'error'; message: string };

/** The task's compaction records (re-read when `revision` moves). */
export function useCompactions(uuid: string, revision: number): CompactionsState {
  const api = useApi();
  const [state, setState] = useState<CompactionsState>({ kind: 'loading' });
  useEffect(() => {
    let live = true;
    api.listCompactions({ uuid }).then(
      (list) => live && setState({ kind: 'ready', records: list.records }),
      (err: unknown) =>
        live &&
        setState({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      live = false;
    };
  }, [api, uuid, revision]);
  return state;
}
