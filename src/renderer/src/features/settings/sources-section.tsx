import { useCallback, useEffect, useState } from 'react';
import type { SourceStatus, SourcesStatus } from '../../../../shared/api/sources-api';
import { agentLabel } from '../../../../shared/agents';
import { useApi } from '../../api/api-context';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { sourcesStrings } from './sources-strings';

type Load =
  | { kind: 'loading' }
  | { kind: 'error'; message: string }
  | { kind: 'ready'; status: SourcesStatus };

/** Settings › Sources: each source's folders, sessions, last sync and errors; sync now. */
export function SourcesSection() {
  const t = useT(sourcesStrings);
  const f = useFormat();
  const api = useApi();
  const [load, setLoad] = useState<Load>({ kind: 'loading' });
  const [sync, setSync] = useState<'idle' | 'syncing' | { ok: boolean; text: string }>('idle');
  const reload = useCallback(() => {
    api.listSources().then(
      (status) => setLoad({ kind: 'ready', status }),
      (err: unknown) =>
        setLoad({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
  }, [api]);
  useEffect(() => {
    reload();
    // New sessions and syncs by the watcher show up here too.
    return api.onEvent((event) => {
      if (event.type === 'tasks-changed') reload();
    });
  }, [api, reload]);

  const syncNow = async (): Promise<void> => {
    setSync('syncing');
    try {
      const result = await api.syncSources({});
      const ok = result.errors.length === 0 && result.busy.length === 0;
      setSync({ ok, text: t('synced', { count: result.messages }) });
    } catch (err) {
      setSync({
        ok: false,
        text: t('syncFailed', { error: err instanceof Error ? err.message : String(err) }),
      });
    }
    reload();
  };

  return (
    <section
      className="settings-sources"
      aria-labelledby="sources-heading"
      data-testid="sources-section"
    >
      <h3 id="sources-heading">{t('heading')}</h3>
      <p className="field-hint">{t('hint')}</p>
      {load.kind === 'loading' && <p role="status">{t('loading')}</p>}
      {load.kind === 'error' && (
        <p className="field-error" role="alert">
          {t('loadError', { error: load.message })}
        </p>
      )}
      {load.kind === 'ready' && (
        <>
          <p className="field-hint">
            {load.status.watch ? t('watching') : t('notWatching')}
            {load.status.watch && load.status.poll ? ` · ${t('polling')}` : ''}
          </p>
          <table className="sources-table">
            <thead>
              <tr>
                <th scope="col">{t('source')}</th>
                <th scope="col">{t('folders')}</th>
                <th scope="col" className="num">
                  {t('sessions')}
                </th>
                <th scope="col">{t('lastSync')}</th>
                <th scope="col">{t('errors')}</th>
              </tr>
            </thead>
            <tbody>
              {foundFirst(load.status.sources).map((s) => (
                <tr
                  key={s.id}
                  data-source={s.id}
                  className={found(s) ? undefined : 'source-absent'}
                >
                  <th scope="row">
                    {agentLabel(s.id, s.label)}
                    {!s.enabled && <span className="field-hint"> ({t('disabled')})</span>}
                  </th>
                  <td>
                    {s.folders.map((folder) => (
                      <div key={folder.path}>
                        <code>{folder.path}</code>
                        {!folder.exists && <span className="field-hint"> ({t('missing')})</span>}
                      </div>
                    ))}
                    {!s.configured && <span className="field-hint">{t('defaults')}</span>}
                  </td>
                  <td className="num">{f.number(s.sessions)}</td>
                  <td>{s.lastSync === null ? t('never') : f.dateTime(s.lastSync)}</td>
                  <td>
                    {s.errorCount === 0
                      ? '0'
                      : s.errors.map((e) => (
                          <div key={e.path} className="field-error" title={e.path}>
                            {e.path.split(/[\\/]/).pop()}: {e.error}
                          </div>
                        ))}
                    {s.errorCount > s.errors.length && (
                      <div className="field-error">
                        {t('moreErrors', { count: s.errorCount - s.errors.length })}
                      </div>
                    )}
                    {s.notices.map((n) => (
                      <div key={`notice:${n.path}`} className="field-hint" title={n.path}>
                        {n.path.split(/[\\/]/).pop()}: {n.notice}
                      </div>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="provider-test">
            <button
              type="button"
              name="sync-sources"
              onClick={() => void syncNow()}
              disabled={sync === 'syncing'}
            >
              {sync === 'syncing' ? t('syncing') : t('syncNow')}
            </button>
            {typeof sync === 'object' && (
              <span className={sync.ok ? 'form-ok' : 'field-error'} role="status">
                {sync.text}
              </span>
            )}
          </div>
        </>
      )}
    </section>
  );
}

/** The agent is on this machine: a folder of it exists, or sessions were read from it. */
function found(s: SourceStatus): boolean {
  return s.sessions > 0 || s.errorCount > 0 || s.folders.some((f) => f.exists);
}

/** The agents present first (in the sources' own order), then those not found here. */
function foundFirst(sources: SourceStatus[]): SourceStatus[] {
  return [...sources.filter(found), ...sources.filter((s) => !found(s))];
}
