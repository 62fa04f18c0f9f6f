import { useCallback, useEffect, useState } from 'react';
import { ApiError } from '../../../../shared/api/api-result';
import type { SettingsPatch, SettingsView } from '../../../../shared/api/settings-api';
import { useApi } from '../../api/api-context';
import { StatePanel } from '../../components/state-panel';
import { useT } from '../../i18n/use-t';
import { settingsStrings } from './strings';
import { SettingsForm } from './settings-form';
import { SourcesSection } from './sources-section';
import { IntegrationSection } from './integration-section';

type Load =
  { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; view: SettingsView };

/** config.yaml through getSettings / updateSettings; errors are shown beside their field. */
export function SettingsPage() {
  const t = useT(settingsStrings);
  const api = useApi();
  const [load, setLoad] = useState<Load>({ kind: 'loading' });
  const reload = useCallback(() => {
    setLoad({ kind: 'loading' });
    api.getSettings().then(
      (view) => setLoad({ kind: 'ready', view }),
      (err: unknown) =>
        setLoad({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
  }, [api]);
  useEffect(reload, [reload]);

  const save = async (
    patch: SettingsPatch,
  ): Promise<{ field: string; message: string } | string> => {
    try {
      const update = await api.updateSettings({ patch });
      setLoad({ kind: 'ready', view: update });
      if (update.notApplied.length)
        return t('notApplied', {
          list: update.notApplied.map((n) => `${n.key} (${n.reason})`).join(', '),
        });
      return update.restartRequired ? t('restart') : t('saved');
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return { field: err instanceof ApiError && err.field ? err.field : 'form', message };
    }
  };

  return (
    <section className="panel settings-panel" aria-labelledby="settings-heading">
      <div className="panel-head">
        <h2 id="settings-heading">{t('heading')}</h2>
        {load.kind === 'ready' && (
          <span className="panel-count">
            {load.view.file
              ? t('file', { file: load.view.target })
              : t('noFile', { file: load.view.target })}
          </span>
        )}
      </div>
      {load.kind === 'loading' && <StatePanel tone="loading" title={t('loading')} />}
      {load.kind === 'error' && (
        <StatePanel tone="error" title={t('loadError')}>
          <p className="state-detail">{load.message}</p>
          <button type="button" onClick={reload}>
            {t('retry')}
          </button>
        </StatePanel>
      )}
      {load.kind === 'ready' && (
        <SettingsForm
          // the form keeps what was typed across a save (its status line with it)
          key={load.view.target}
          view={load.view}
          onSave={save}
        />
      )}
      <SourcesSection />
      <IntegrationSection />
    </section>
  );
}
