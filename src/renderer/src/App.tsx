import { lazy, Suspense, useEffect } from 'react';
import { AppHeader } from './components/app-header';
import { KeysOverlay } from './components/keys-overlay';
import { useAppInfo } from './hooks/use-app-info';
import { useRoute } from './router/use-route';
import { useUiStore } from './state/ui-store';
import { TasksPage } from './features/browser/tasks-page';
import { TaskPage } from './features/task/task-page';

// The first views (the table, a task) load with the page; the summary diff and the settings
// carry the diff library and the API's schemas (zod), so they load when opened.
const CompactionPage = lazy(() =>
  import('./features/compaction/compaction-page').then((m) => ({ default: m.CompactionPage })),
);
// The Usage page carries uPlot and the report's tables: loaded when opened.
const UsagePage = lazy(() =>
  import('./features/usage/usage-page').then((m) => ({ default: m.UsagePage })),
);
const SettingsPage = lazy(() =>
  import('./features/settings/settings-page').then((m) => ({ default: m.SettingsPage })),
);

/** The workbench: one page per route (see router/route.ts). */
export function App() {
  const info = useAppInfo();
  const route = useRoute();
  const theme = useUiStore((s) => s.theme);
  const language = useUiStore((s) => s.language);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    document.documentElement.lang = language;
  }, [theme, language]);
  return (
    <div className="app">
      <AppHeader info={info} route={route} />
      <main className="app-main">
        {route.page === 'tasks' && <TasksPage />}
        {route.page === 'task' && <TaskPage route={route} />}
        <Suspense fallback={<div className="state-panel state-loading" role="status" />}>
          {route.page === 'compaction' && <CompactionPage uuid={route.uuid} id={route.id} />}
          {route.page === 'settings' && <SettingsPage />}
          {route.page === 'usage' && <UsagePage params={route} />}
        </Suspense>
      </main>
      <KeysOverlay />
    </div>
  );
}
