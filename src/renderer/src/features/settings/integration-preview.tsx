import { useEffect, useState } from 'react';
import type {
  IntegrationAgentId,
  IntegrationApplied,
  IntegrationPreview,
  IntegrationScopeId,
} from '../../../../shared/api/integration-api';
import { agentLabel } from '../../../../shared/agents';
import { useApi } from '../../api/api-context';
import { ModalDialog } from '../../components/modal-dialog';
import { useT } from '../../i18n/use-t';
import { integrationStrings } from './integration-strings';

export interface IntegrationRequest {
  agent: IntegrationAgentId;
  action: 'install' | 'uninstall';
  scope: IntegrationScopeId;
  project?: string;
}

type State =
  | { kind: 'loading' }
  | { kind: 'ready'; preview: IntegrationPreview; error?: string }
  | { kind: 'writing'; preview: IntegrationPreview }
  | { kind: 'error'; message: string };

/**
 * The change install or uninstall would make, file by file, as the unified diff
 * `cwb hooks install --dry-run` prints; written only when the user says so, and only if the
 * files are still as the preview read them.
 */
export function IntegrationPreviewDialog(props: {
  request: IntegrationRequest;
  onClose(): void;
  onApplied(applied: IntegrationApplied): void;
}) {
  const t = useT(integrationStrings);
  const api = useApi();
  const { request, onApplied } = props;
  const [state, setState] = useState<State>({ kind: 'loading' });
  useEffect(() => {
    let live = true;
    api.previewIntegration(request).then(
      (preview) => live && setState({ kind: 'ready', preview }),
      (err: unknown) => live && setState({ kind: 'error', message: messageOf(err) }),
    );
    return () => {
      live = false;
    };
  }, [api, request]);

  const write = async (preview: IntegrationPreview): Promise<void> => {
    setState({ kind: 'writing', preview });
    try {
      onApplied(await api.applyIntegration({ ...request, planId: preview.planId }));
    } catch (err) {
      setState({ kind: 'ready', preview, error: messageOf(err) });
    }
  };

  const agent = agentLabel(request.agent, request.agent);
  const preview = state.kind === 'ready' || state.kind === 'writing' ? state.preview : null;
  const canWrite = preview !== null && preview.changes.length > 0;
  return (
    <ModalDialog
      title={t(request.action === 'install' ? 'previewInstall' : 'previewUninstall', { agent })}
      className="integration-dialog"
      onClose={props.onClose}
      onSubmit={() => {
        if (state.kind === 'ready' && canWrite) void write(state.preview);
      }}
      footer={
        <>
          <button type="button" onClick={props.onClose}>
            {canWrite ? t('cancel') : t('close')}
          </button>
          {canWrite && (
            <button type="submit" className="primary" disabled={state.kind === 'writing'}>
              {state.kind === 'writing' ? t('writing') : t('write')}
            </button>
          )}
        </>
      }
    >
      {state.kind === 'loading' && <p role="status">{t('previewing')}</p>}
      {state.kind === 'error' && (
        <p className="form-error" role="alert">
          {state.message}
        </p>
      )}
      {preview && (
        <>
          {preview.changes.length === 0 && <p>{t('nothing')}</p>}
          {preview.changes.map((change) => (
            <section key={change.file} className="integration-change" data-file={change.file}>
              <h3>
                <span>{t(change.kind)}</span> <code>{change.file}</code>
                {change.created && <span className="field-hint"> ({t('newFile')})</span>}
                {change.removed && <span className="field-hint"> ({t('removedFile')})</span>}
              </h3>
              <DiffView diff={change.diff} />
            </section>
          ))}
          {preview.unchanged.length > 0 && (
            <p className="field-hint">{t('unchanged', { files: preview.unchanged.join(', ') })}</p>
          )}
          {canWrite && <p className="field-hint">{t('backup')}</p>}
        </>
      )}
      {state.kind === 'ready' && state.error && (
        <p className="form-error" role="alert">
          {state.error}
        </p>
      )}
    </ModalDialog>
  );
}

/** The diff's hunks, lines marked added or removed (its file header is the section's title). */
function DiffView({ diff }: { diff: string }) {
  const lines = diff
    .split('\n')
    .filter((l) => !/^(Index: |={10,}$|--- |\+\+\+ |\\ No newline)/.test(l));
  return (
    <pre className="integration-diff" tabIndex={0}>
      {lines.map((line, i) => (
        <span key={i} className={lineClass(line)}>
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

function lineClass(line: string): string {
  if (line.startsWith('@@')) return 'diff-hunk';
  if (line.startsWith('+')) return 'diff-add';
  if (line.startsWith('-')) return 'diff-del';
  return 'diff-same';
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
