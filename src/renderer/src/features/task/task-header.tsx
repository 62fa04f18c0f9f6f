import { useState } from 'react';
import type { TaskDetail } from '../../../../shared/api/tasks-api';
import { useApi } from '../../api/api-context';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { navigate } from '../../router/use-route';
import { LazyExportDialog } from '../transfer/lazy-export-dialog';
import { taskStrings, type TaskStringKey } from './strings';
import type { CostFigure } from '../../../../shared/cost-types';
import { formatUsd } from '../../../../shared/format-cost';

function costText(cost: CostFigure | undefined): string {
  if (!cost) return '—';
  return cost.usd === null ? '?' : formatUsd(cost.usd);
}

/** Per model and per compaction, and where the prices come from. */
function costHint(
  detail: TaskDetail,
  t: (key: TaskStringKey, vars?: Record<string, string | number>) => string,
): string {
  const cost = detail.cost;
  if (!cost) return '';
  const lines = [
    ...(cost.total.usd === null ? [t(`costUnknown_${cost.total.unknown}`)] : []),
    ...cost.models.map((m) => `${m.model ?? '?'}: ${costText(m.cost)}`),
    ...cost.compactions
      .filter((c) => c.cost !== null)
      .map((c) => t('costCompaction', { id: c.id, strategy: c.strategy, cost: costText(c.cost!) })),
    t('costPrices', { version: cost.prices.version }),
  ];
  return lines.join('\n');
}

type Action = 'pause' | 'resume' | 'stop';

/** The task's key, status, statistics and actions; re-rendered as the detail refreshes. */
export function TaskHeader({ detail, onChanged }: { detail: TaskDetail; onChanged(): void }) {
  const api = useApi();
  const t = useT(taskStrings);
  const f = useFormat();
  const task = detail.task;
  const [busy, setBusy] = useState<Action | null>(null);
  const [exporting, setExporting] = useState(false);
  const [notice, setNotice] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);

  const run = (action: Action, fn: () => Promise<string | null>): void => {
    setBusy(action);
    setNotice(null);
    fn()
      .then(
        (text) => {
          if (text) setNotice({ tone: 'ok', text });
          onChanged();
        },
        (err: unknown) =>
          setNotice({
            tone: 'error',
            text: t('actionFailed', {
              action: t(action),
              message: err instanceof Error ? err.message : String(err),
            }),
          }),
      )
      .finally(() => setBusy(null));
  };

  const key = [task.task_source, task.owner, task.repo, task.task_type, task.task_id]
    .filter((part) => part !== '')
    .join(' / ');
  const end =
    task.completed_at ?? (task.status === 'running' ? new Date().toISOString() : task.updated_at);
  const start = task.started_at ?? task.created_at;
  const duration = Date.parse(end) - Date.parse(start);
  const stats: [TaskStringKey, string, string?][] = [
    ['messages', f.number(task.total_messages), t('inContext', { n: detail.currentMessages })],
    ['tokensIn', f.tokens(task.input_tokens)],
    ['tokensOut', f.tokens(task.output_tokens)],
    [
      'cache',
      `${f.compact(task.cache_read_tokens)} / ${f.compact(task.cache_creation_tokens)}`,
      `${f.tokens(task.cache_read_tokens)} / ${f.tokens(task.cache_creation_tokens)}`,
    ],
    ['llmCalls', f.number(task.llm_call_count)],
    ['toolCalls', f.number(task.tool_call_count)],
    [
      'compactions',
      `${f.number(detail.compactions.active)} / ${f.number(detail.compactions.total)}`,
      t('compactionsHint', {
        active: detail.compactions.active,
        total: detail.compactions.total,
      }),
    ],
    ['cost', costText(detail.cost.total), costHint(detail, t)],
    ['duration', f.duration(duration), t('startedAt', { when: f.dateTime(start) })],
  ];

  return (
    <header className="tv-header">
      <div className="tv-header-top">
        <button type="button" className="tv-link" onClick={() => navigate({ page: 'tasks' })}>
          {t('back')}
        </button>
        <div className="tv-title">
          <h2 title={task.title ?? undefined}>{task.title ?? t('untitled')}</h2>
          <span className={`tv-status tv-status-${task.status}`} data-status={task.status}>
            <span className="tv-status-dot" aria-hidden="true" />
            {t(task.status)}
          </span>
        </div>
        <div className="tv-actions">
          {task.status === 'running' && (
            <button
              type="button"
              disabled={busy !== null}
              onClick={() =>
                run('pause', () => api.pauseTask({ uuid: task.uuid }).then(() => null))
              }
            >
              {t('pause')}
            </button>
          )}
          {(task.status === 'paused' || task.status === 'failed') && (
            <button
              type="button"
              disabled={busy !== null}
              onClick={() =>
                run('resume', () => api.resumeTask({ uuid: task.uuid }).then(() => null))
              }
            >
              {t('resume')}
            </button>
          )}
          {(task.status === 'running' || task.status === 'paused') && (
            <button
              type="button"
              className="tv-danger"
              disabled={busy !== null}
              onClick={() => run('stop', () => api.stopTask({ uuid: task.uuid }).then(() => null))}
            >
              {t('stop')}
            </button>
          )}
          <button
            type="button"
            onClick={() => navigate({ page: 'task', uuid: task.uuid, tab: 'compactions' })}
          >
            {t('compact')}
          </button>
          <button type="button" onClick={() => setExporting(true)}>
            {t('export')}
          </button>
          {exporting && (
            <LazyExportDialog uuids={[task.uuid]} onClose={() => setExporting(false)} />
          )}
        </div>
      </div>
      <div className="tv-key">
        {key && <span className="tv-key-path">{key}</span>}
        {task.user && <span>@{task.user}</span>}
        {task.model && (
          <span>
            {t('model')}: {task.llm_provider ? `${task.llm_provider} · ` : ''}
            {task.model}
          </span>
        )}
        <span className="tv-uuid">{task.uuid}</span>
      </div>
      {task.error_message && <p className="tv-error-line">{task.error_message}</p>}
      <dl className="tv-stats">
        {stats.map(([label, value, hint]) => (
          <div key={label} title={hint}>
            <dt>{t(label)}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {notice && (
        <p
          className={`tv-notice tv-notice-${notice.tone}`}
          role={notice.tone === 'error' ? 'alert' : 'status'}
        >
          {notice.text}
        </p>
      )}
    </header>
  );
}
