import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { typingOrDialog } from '../../components/keys-overlay';
import { LazyExportDialog } from '../transfer/lazy-export-dialog';
import { StatePanel } from '../../components/state-panel';
import { useT } from '../../i18n/use-t';
import type { Route, TaskTab } from '../../router/route';
import { navigate } from '../../router/use-route';
import { PlanningTab } from './planning-tab';
import { ContextTab } from './context-tab';
import { taskStrings, type TaskStringKey } from './strings';
import { TaskHeader } from './task-header';
import { TimelineTab } from './timeline-tab';
import { UsageChart } from './usage-chart';
import { useCompactions } from './use-compactions';
import { useTaskDetail } from './use-task-detail';
import './task-view.css';

// The compaction tab carries the API's schemas (zod) and the diff code: not needed to show
// the timeline, so it loads when the tab opens.
const CompactionControls = lazy(() =>
  import('../compaction/compaction-controls').then((m) => ({ default: m.CompactionControls })),
);

// The tool-call table brings @tanstack/react-table: loaded with its tab, like the above.
const ToolsTab = lazy(() => import('./tools-tab').then((m) => ({ default: m.ToolsTab })));

type TaskRoute = Extract<Route, { page: 'task' }>;

const TABS: { tab: TaskTab; label: TaskStringKey }[] = [
  { tab: 'timeline', label: 'tabTimeline' },
  { tab: 'compactions', label: 'tabCompactions' },
  { tab: 'planning', label: 'tabPlanning' },
  { tab: 'tools', label: 'tabTools' },
  { tab: 'context', label: 'tabContext' },
];

/**
 * One task: header, usage chart, and the timeline / compactions / planning / tools tabs.
 * Each part asks for its own data at once and shows it when it comes: the timeline's first
 * window does not wait for the header's getTask nor for the usage chart.
 */
export function TaskPage({ route }: { route: TaskRoute }) {
  const t = useT(taskStrings);
  const { uuid } = route;
  const { state, revision, reload } = useTaskDetail(uuid);
  const compactions = useCompactions(uuid, revision);
  const go = (change: Partial<Omit<TaskRoute, 'page' | 'uuid'>>): void =>
    navigate({ page: 'task', uuid, tab: route.tab, view: route.view, ...change });
  const jump = (seq: number): void => go({ tab: 'timeline', seq, view: 'history' });
  const [exporting, setExporting] = useState(false);

  // Keyboard: Esc back to the list, [ and ] through the tabs, e to export.
  const tabRef = useRef(route.tab);
  tabRef.current = route.tab;
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.ctrlKey || e.metaKey || e.altKey || typingOrDialog(e)) return;
      const at = TABS.findIndex((x) => x.tab === tabRef.current);
      const keys: Record<string, () => void> = {
        Escape: () => navigate({ page: 'tasks' }),
        ']': () => navigate({ page: 'task', uuid, tab: TABS[(at + 1) % TABS.length]!.tab }),
        '[': () =>
          navigate({ page: 'task', uuid, tab: TABS[(at + TABS.length - 1) % TABS.length]!.tab }),
        e: () => setExporting(true),
      };
      const action = keys[e.key];
      if (!action) return;
      e.preventDefault();
      action();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [uuid]);

  if (state.kind === 'not-found')
    return (
      <StatePanel tone="empty" title={t('notFoundTitle')}>
        <p>
          {/* The id kept whole on one line, wherever the sentence around it wraps. */}
          {t('notFoundBody', { uuid: '\u0000' })
            .split('\u0000')
            .flatMap((part, i) =>
              i === 0
                ? [part]
                : [
                    <code key={i} className="nowrap">
                      {uuid}
                    </code>,
                    part,
                  ],
            )}
        </p>
        <BackLink label={t('backToList')} />
      </StatePanel>
    );
  if (state.kind === 'error')
    return (
      <StatePanel tone="error" title={t('loadError')}>
        <p>{state.message}</p>
        <button type="button" onClick={reload}>
          {t('retry')}
        </button>{' '}
        <a href="#/" className="tv-link">
          {t('backToList')}
        </a>
      </StatePanel>
    );

  return (
    <div className="task-view">
      {exporting && <LazyExportDialog uuids={[uuid]} onClose={() => setExporting(false)} />}
      {state.kind === 'ready' ? (
        <TaskHeader detail={state.detail} onChanged={reload} />
      ) : (
        <header className="tv-header tv-header-loading" aria-busy="true">
          <div className="tv-header-top">
            <button type="button" className="tv-link" onClick={() => navigate({ page: 'tasks' })}>
              {t('back')}
            </button>
            <span className="tv-muted">{t('loading')}</span>
          </div>
        </header>
      )}
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
            mark={route.mark}
            revision={revision}
            compactions={compactions.kind === 'ready' ? compactions.records : []}
            onRoute={(change) => go({ tab: 'timeline', seq: undefined, ...change })}
          />
        )}
        {route.tab === 'compactions' &&
          (state.kind === 'ready' ? (
            <Suspense fallback={<StatePanel tone="loading" title={t('loadingTab')} />}>
              <CompactionControls
                uuid={uuid}
                status={state.detail.task.status}
                onChanged={reload}
              />
            </Suspense>
          ) : (
            <StatePanel tone="loading" title={t('loading')} />
          ))}
        {route.tab === 'planning' && <PlanningTab uuid={uuid} revision={revision} />}
        {route.tab === 'tools' && (
          <Suspense fallback={<StatePanel tone="loading" title={t('loadingTab')} />}>
            <ToolsTab uuid={uuid} revision={revision} onJump={jump} />
          </Suspense>
        )}
        {route.tab === 'context' && (
          <ContextTab
            uuid={uuid}
            at={route.seq}
            revision={revision}
            onAt={(seq) => go({ tab: 'context', seq })}
            onJump={jump}
          />
        )}
      </div>
    </div>
  );
}

/** The way back from a task that is not there: focused, so Enter (or Esc) goes back. */
function BackLink({ label }: { label: string }) {
  const ref = useRef<HTMLAnchorElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <a ref={ref} href="#/" className="tv-link" data-testid="not-found-back">
      {label}
    </a>
  );
}
