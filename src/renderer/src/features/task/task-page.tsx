import { StatePanel } from '../../components/state-panel';
import { useT } from '../../i18n/use-t';
import type { Route, TaskTab } from '../../router/route';
import { navigate } from '../../router/use-route';
import { CompactionControls } from '../compaction/compaction-controls';
import { PlanningTab } from './planning-tab';
import { taskStrings, type TaskStringKey } from './strings';
import { TaskHeader } from './task-header';
import { TimelineTab } from './timeline-tab';
import { ToolsTab } from './tools-tab';
import { UsageChart } from './usage-chart';
import { useCompactions } from './use-compactions';
import { useTaskDetail } from './use-task-detail';
import './task-view.css';

type TaskRoute = Extract<Route, { page: 'task' }>;

const TABS: { tab: TaskTab; label: TaskStringKey }[] = [
  { tab: 'timeline', label: 'tabTimeline' },
  { tab: 'compactions', label: 'tabCompactions' },
  { tab: 'planning', label: 'tabPlanning' },
  { tab: 'tools', label: 'tabTools' },
];

/** One task: header, usage chart, and the timeline / compactions / planning / tools tabs. */
export function TaskPage({ route }: { route: TaskRoute }) {
  const t = useT(taskStrings);
  const { uuid } = route;
  const { state, revision, reload } = useTaskDetail(uuid);
  const compactions = useCompactions(uuid, revision);
  const go = (change: Partial<Omit<TaskRoute, 'page' | 'uuid'>>): void =>
    navigate({ page: 'task', uuid, tab: route.tab, view: route.view, ...change });
  const jump = (seq: number): void => go({ tab: 'timeline', seq, view: 'history' });

  if (state.kind === 'loading') return <StatePanel tone="loading" title={t('loading')} />;
  if (state.kind === 'error')
    return (
      <StatePanel tone="error" title={t('loadError')}>
        <p>{state.message}</p>
        <button type="button" onClick={reload}>
          {t('retry')}
        </button>
      </StatePanel>
    );

  return (
    <div className="task-view">
      <TaskHeader detail={state.detail} onChanged={reload} />
      <UsageChart uuid={uuid} revision={revision} />
      <nav className="tv-tabs" role="tablist">
        {TABS.map(({ tab, label }) => (
          <button
            key={tab}
            type="button"
            role="tab"
            aria-selected={route.tab === tab}
            className={route.tab === tab ? 'active' : ''}
            onClick={() => navigate({ page: 'task', uuid, tab })}
          >
            {t(label)}
            {tab === 'compactions' &&
              compactions.kind === 'ready' &&
              compactions.records.length > 0 && (
                <span className="tv-count">{compactions.records.length}</span>
              )}
          </button>
        ))}
      </nav>
      <div className="tv-tab-body">
        {route.tab === 'timeline' && (
          <TimelineTab
            uuid={uuid}
            view={route.view ?? 'history'}
            seq={route.seq}
            revision={revision}
            compactions={compactions.kind === 'ready' ? compactions.records : []}
            onRoute={(change) => go({ tab: 'timeline', seq: undefined, ...change })}
          />
        )}
        {route.tab === 'compactions' && (
          <CompactionControls uuid={uuid} status={state.detail.task.status} onChanged={reload} />
        )}
        {route.tab === 'planning' && <PlanningTab uuid={uuid} revision={revision} />}
        {route.tab === 'tools' && <ToolsTab uuid={uuid} revision={revision} onJump={jump} />}
      </div>
    </div>
  );
}
