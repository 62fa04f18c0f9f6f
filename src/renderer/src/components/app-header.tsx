import type { AppInfo } from '../../../shared/api/app-api';

export function AppHeader({ info }: { info: AppInfo | null }) {
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
            title={`served by ${info.host === 'electron' ? 'the desktop app' : 'cwb serve'}`}
          >
            {info.host === 'electron' ? 'Desktop' : 'Web'}
          </span>
        )}
      </div>
      {info && (
        <dl className="app-facts">
          <div>
            <dt>Contexts</dt>
            <dd title={info.contextsRoot}>{info.contextsRoot}</dd>
          </div>
          <div>
            <dt>Version</dt>
            <dd>{info.version}</dd>
          </div>
        </dl>
      )}
    </header>
  );
}
