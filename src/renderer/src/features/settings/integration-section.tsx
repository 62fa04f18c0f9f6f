import { useCallback, useEffect, useState } from 'react';
import type {
  AgentIntegrationStatus,
  IntegrationPieceStatus,
  IntegrationScopeId,
  IntegrationStatusView,
} from '../../../../shared/api/integration-api';
import { agentLabel } from '../../../../shared/agents';
import { useApi } from '../../api/api-context';
import { SegmentedControl } from '../../components/segmented-control';
import { useT, type Translate } from '../../i18n/use-t';
import { IntegrationPreviewDialog, type IntegrationRequest } from './integration-preview';
import { integrationStrings } from './integration-strings';

type Load =
  | { kind: 'loading' }
  | { kind: 'error'; message: string }
  | { kind: 'ready'; status: IntegrationStatusView };

type T = Translate<keyof (typeof integrationStrings)['en']>;

/**
 * Settings › Agent integration: per agent, whether the compaction hook and the MCP server
 * are in its settings (user or project), which cwb they call and in which file; Install and
 * Uninstall open a preview of the change, written only when confirmed.
 */
export function IntegrationSection() {
  const t = useT(integrationStrings);
  const api = useApi();
  const [scope, setScope] = useState<IntegrationScopeId>('user');
  const [folder, setFolder] = useState('');
  const [project, setProject] = useState<string | null>(null);
  const [load, setLoad] = useState<Load>({ kind: 'loading' });
  const [request, setRequest] = useState<IntegrationRequest | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);

  const where = scope === 'project' && project ? { scope, project } : { scope: 'user' as const };
  const whereKey = JSON.stringify(where);
  const reload = useCallback(() => {
    const w = JSON.parse(whereKey) as { scope: IntegrationScopeId; project?: string };
    api.integrationStatus(w).then(
      (status) => setLoad({ kind: 'ready', status }),
      (err: unknown) =>
        setLoad({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
  }, [api, whereKey]);
  useEffect(reload, [reload]);
  const shown = load.kind === 'ready' && (scope === 'user' || project !== null);

  return (
    <section
      className="settings-integration"
      aria-labelledby="integration-heading"
      data-testid="integration-section"
    >
      <h3 id="integration-heading">{t('heading')}</h3>
      <p className="field-hint">{t('hint')}</p>
      <div className="integration-scope">
        <span>{t('scope')}</span>
        <SegmentedControl
          label={t('scope')}
          name="integration-scope"
          value={scope}
          options={[
            { value: 'user', label: t('scopeUser') },
            { value: 'project', label: t('scopeProject') },
          ]}
          onChange={(value) => {
            setScope(value);
            setOutcome(null);
            if (value === 'user') setProject(null);
          }}
        />
      </div>
      {scope === 'project' && (
        <form
          className="integration-project"
          onSubmit={(e) => {
            e.preventDefault();
            setLoad({ kind: 'loading' });
            setProject(folder.trim() || null);
          }}
        >
          <label className="field">
            <span>{t('project')}</span>
            <input
              name="integration-project"
              value={folder}
              placeholder={t('projectHint')}
              spellCheck={false}
              onChange={(e) => setFolder(e.target.value)}
            />
          </label>
          <button type="submit" disabled={folder.trim() === ''}>
            {t('show')}
          </button>
        </form>
      )}
      {load.kind === 'loading' && <p role="status">{t('loading')}</p>}
      {load.kind === 'error' && (
        <p className="field-error" role="alert">
          {t('loadError', { error: load.message })}
        </p>
      )}
      {shown && (
        <>
          <p className={load.status.cwb ? 'field-hint' : 'field-error'}>
            {load.status.cwb ? t('calls', { cwb: load.status.cwb }) : t('noCwb')}
          </p>
          <ul className="integration-agents">
            {load.status.agents.map((a) => (
              <AgentRow
                key={a.agent}
                status={a}
                cwb={load.status.cwb}
                t={t}
                onAction={(action) => {
                  setOutcome(null);
                  setRequest({ agent: a.agent, action, ...where });
                }}
              />
            ))}
          </ul>
        </>
      )}
      {outcome && (
        <p className="form-ok" role="status">
          {outcome}
        </p>
      )}
      {request && (
        <IntegrationPreviewDialog
          request={request}
          onClose={() => setRequest(null)}
          onApplied={(applied) => {
            setRequest(null);
            setOutcome(
              t('done', {
                agent: agentLabel(applied.agent, applied.agent),
                count: applied.changes.length,
              }),
            );
            reload();
          }}
        />
      )}
    </section>
  );
}

function AgentRow(props: {
  status: AgentIntegrationStatus;
  cwb: string | null;
  t: T;
  onAction(action: 'install' | 'uninstall'): void;
}) {
  const { status, cwb, t } = props;
  const broken = status.pieces.some((p) => p.error !== undefined);
  const anyInstalled = status.pieces.some((p) => p.installed);
  const complete = status.pieces.every((p) => p.installed && p.callsExists && p.calls === cwb);
  const name = agentLabel(status.agent, status.agent);
  return (
    <li className="integration-agent" data-agent={status.agent}>
      <div className="integration-agent-head">
        <h4>{name}</h4>
        <button
          type="button"
          name="integration-install"
          aria-label={`${t('install')} ${name}`}
          disabled={broken || complete || cwb === null}
          onClick={() => props.onAction('install')}
        >
          {t('install')}
        </button>
        <button
          type="button"
          name="integration-uninstall"
          aria-label={`${t('uninstall')} ${name}`}
          disabled={broken || !anyInstalled}
          onClick={() => props.onAction('uninstall')}
        >
          {t('uninstall')}
        </button>
      </div>
      <dl className="integration-pieces">
        {!status.hookSupported && (
          <div data-piece="hook">
            <dt>{t('hook')}</dt>
            <dd className="field-hint">{t('noHook')}</dd>
          </div>
        )}
        {status.pieces.map((p) => (
          <div key={p.kind} data-piece={p.kind}>
            <dt>{t(p.kind)}</dt>
            <dd>
              <PieceState piece={p} t={t} />
              <code className="integration-file">{p.file}</code>
            </dd>
          </div>
        ))}
      </dl>
    </li>
  );
}

function PieceState(props: { piece: IntegrationPieceStatus; t: T }) {
  const { piece, t } = props;
  if (piece.error !== undefined)
    return (
      <span className="field-error" role="alert">
        {piece.error}
      </span>
    );
  if (!piece.installed) return <span className="integration-state">{t('notInstalled')}</span>;
  return (
    <span className="integration-state integration-installed">
      {t('installed')}
      {piece.callsExists === false ? (
        <span className="field-error"> · {t('callsMissing', { cwb: piece.calls ?? '' })}</span>
      ) : (
        piece.calls !== undefined && (
          <span className="field-hint"> · {t('callsThis', { cwb: piece.calls })}</span>
        )
      )}
    </span>
  );
}
