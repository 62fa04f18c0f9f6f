import { lazy, Suspense, useState } from 'react';
import type { AppInfo } from '../../../shared/api/app-api';
import { useT } from '../i18n/use-t';
import type { Route } from '../router/route';
import { navigate } from '../router/use-route';
import { useUiStore, type Language, type ThemeChoice } from '../state/ui-store';
import { headerStrings } from './header-strings';
import { SegmentedControl } from './segmented-control';

// Both dialogs load when first opened: the first view's script stays small
// (test/renderer-bundle.test.ts).
const NewTaskDialog = lazy(() =>
  import('../features/browser/new-task-dialog').then((m) => ({ default: m.NewTaskDialog })),
);
const ImportDialog = lazy(() =>
  import('../features/transfer/import-dialog').then((m) => ({ default: m.ImportDialog })),
);

/** The top bar: where you are, what you can start, and how the UI looks. */
export function AppHeader({ info, route }: { info: AppInfo | null; route: Route }) {
  const t = useT(headerStrings);
  const { theme, language, setTheme, setLanguage } = useUiStore();
  const [dialog, setDialog] = useState<'new-task' | 'import' | null>(null);
  const onTasks = route.page === 'tasks' || route.page === 'task' || route.page === 'compaction';
  return (
    <header className="app-header">
      <div className="brand">
        <div className="mark mark-small" aria-hidden="true">
          <span />
          <span />
          <span />
          <span />
        </div>
        <h1>Context Workbench</h1>
        {info && (
          <span
            className="host-badge"
            title={t('servedBy', { host: info.host === 'electron' ? t('desktop') : 'cwb serve' })}
          >
            {info.host === 'electron' ? t('desktop') : t('web')}
          </span>
        )}
      </div>
      <nav className="app-nav" aria-label={t('nav')}>
        <a
          href="#/"
          aria-current={onTasks ? 'page' : undefined}
          onClick={(e) => {
            e.preventDefault();
            navigate({ page: 'tasks' });
          }}
        >
          {t('tasks')}
        </a>
        <a
          href="#/usage"
          aria-current={route.page === 'usage' ? 'page' : undefined}
          onClick={(e) => {
            e.preventDefault();
            navigate({ page: 'usage' });
          }}
        >
          {t('usage')}
        </a>
        <a
          href="#/settings"
          aria-current={route.page === 'settings' ? 'page' : undefined}
          onClick={(e) => {
            e.preventDefault();
            navigate({ page: 'settings' });
          }}
        >
          {t('settings')}
        </a>
      </nav>
      {info && (
        <dl className="app-facts">
          <div>
            <dt>{t('contexts')}</dt>
            <dd title={info.contextsRoot}>{info.contextsRoot}</dd>
          </div>
        </dl>
      )}
      <div className="header-actions">
        <button type="button" className="primary" onClick={() => setDialog('new-task')}>
          {t('newTask')}
        </button>
        <button type="button" onClick={() => setDialog('import')}>
          {t('import')}
        </button>
        <SegmentedControl<ThemeChoice>
          name="theme"
          label={t('theme')}
          value={theme}
          onChange={setTheme}
          options={[
            { value: 'system', label: t('system') },
            { value: 'light', label: t('light') },
            { value: 'dark', label: t('dark') },
          ]}
        />
        <SegmentedControl<Language>
          name="language"
          label={t('language')}
          value={language}
          onChange={setLanguage}
          options={[
            { value: 'en', label: 'EN' },
            { value: 'ja', label: '日本語' },
          ]}
        />
      </div>
      <Suspense fallback={null}>
        {dialog === 'new-task' && <NewTaskDialog onClose={() => setDialog(null)} />}
        {dialog === 'import' && <ImportDialog onClose={() => setDialog(null)} />}
      </Suspense>
    </header>
  );
}
