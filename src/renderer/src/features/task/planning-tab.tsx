import { useEffect, useState } from 'react';
import type { PlanningEntry } from '../../../../shared/task-types';
import { useApi } from '../../api/api-context';
import { StatePanel } from '../../components/state-panel';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { taskStrings } from './strings';

type PlanningState =
  | { kind: 'loading' }
  | { kind: 'ready'; entries: PlanningEntry[] }
  | { kind: 'error'; message: string };

/** planning.jsonl as a history: how the plan changed over the task, newest first. */
export function PlanningTab({ uuid, revision }: { uuid: string; revision: number }) {
  const api = useApi();
  const t = useT(taskStrings);
  const f = useFormat();
  const [state, setState] = useState<PlanningState>({ kind: 'loading' });
  useEffect(() => {
    let live = true;
    api.listPlanning({ uuid, limit: 5000 }).then(
      (list) => live && setState({ kind: 'ready', entries: list.records }),
      (err: unknown) =>
        live &&
        setState({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      live = false;
    };
  }, [api, uuid, revision]);
  if (state.kind === 'loading') return <StatePanel tone="loading" title={t('planningLoading')} />;
  if (state.kind === 'error')
    return (
      <StatePanel tone="error" title={t('loadError')}>
        {state.message}
      </StatePanel>
    );
  if (state.entries.length === 0) return <StatePanel tone="empty" title={t('planningEmpty')} />;
  return (
    <ol className="tv-planning">
      {[...state.entries].reverse().map((e) => (
        <li key={e.id} className="tv-plan">
          <div className="tv-row-head">
            <span className="tv-seq">#{e.id}</span>
            <span className="tv-badge">{e.plan_type}</span>
            <time className="tv-muted" dateTime={e.created_at}>
              {f.dateTime(e.created_at)}
            </time>
          </div>
          <div className="tv-text">{e.plan_content}</div>
        </li>
      ))}
    </ol>
  );
}
