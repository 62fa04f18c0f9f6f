import { useState } from 'react';
import type { CompactionRecordInfo } from '../../../../shared/api/compaction-api';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { navigate } from '../../router/use-route';
import { compactionStrings } from './strings';

/**
 * Every compaction of the task, newest first, with undo (confirmed; it names the later
 * compactions that are undone with it) and a link to its diff page.
 */
export function CompactionList({
  uuid,
  records,
  canUndo,
  onUndo,
}: {
  uuid: string;
  records: readonly CompactionRecordInfo[];
  canUndo: boolean;
  onUndo(id: number): Promise<void>;
}) {
  const t = useT(compactionStrings);
  const f = useFormat();
  const [confirming, setConfirming] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  if (records.length === 0) return <p className="cmp-empty">{t('listEmpty')}</p>;
  const active = records.filter((r) => !r.undone).map((r) => r.id);
  return (
    <table className="cmp-table">
      <thead>
        <tr>
          <th>{t('colId')}</th>
          <th>{t('colStrategy')}</th>
          <th>{t('colWhen')}</th>
          <th>{t('colRange')}</th>
          <th className="cmp-num">{t('colTokens')}</th>
          <th>{t('colState')}</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {[...records].reverse().map((r) => {
          const later = active.filter((id) => id > r.id);
          const before = r.tokens_before ?? r.original_tokens;
          const after = r.tokens_after ?? r.summary_tokens;
          return (
            <tr key={r.id} className={r.undone ? 'cmp-row-undone' : ''} data-record={r.id}>
              <td>{r.id}</td>
              <td>
                <code>{r.strategy}</code>
              </td>
              <td title={r.created_at}>{f.dateTime(r.created_at)}</td>
              <td>{r.start_seq > 0 ? `${r.start_seq}–${r.end_seq}` : '—'}</td>
              <td
                className="cmp-num"
                title={
                  r.quality
                    ? t('listTokensTitle', {
                        count: r.quality.spanMessages,
                        spanTokens: f.number(r.quality.spanTokens),
                        replacement: f.number(r.quality.replacementTokens),
                      })
                    : undefined
                }
              >
                {f.number(before)} → {f.number(after)}
                {r.agent_tokens_before !== undefined && (
                  <div
                    className="cmp-agent-tokens"
                    title={t('agentTokensTitle', { count: f.number(r.agent_tokens_before) })}
                  >
                    {t('agentTokens', { count: f.number(r.agent_tokens_before) })}
                  </div>
                )}
              </td>
              <td>
                <span className={`cmp-badge ${r.undone ? 'cmp-badge-undone' : 'cmp-badge-on'}`}>
                  {r.undone ? t('undone') : t('inEffect')}
                </span>
                {r.agent_compaction === true && (
                  <span className="cmp-badge cmp-badge-agent" title={t('agentOwnTitle')}>
                    {t('agentOwn')}
                  </span>
                )}
              </td>
              <td>
                {/* A flex box inside the cell: a flex td leaves the table and its border drifts. */}
                <div className="cmp-actions">
                  {r.planLength !== null && (
                    <button
                      type="button"
                      className="cmp-link-button"
                      onClick={() => navigate({ page: 'compaction', uuid, id: r.id })}
                    >
                      {t('viewDiff')}
                    </button>
                  )}
                  {!r.undone &&
                    r.planLength !== null &&
                    r.agent_compaction !== true &&
                    confirming !== r.id && (
                      <button type="button" disabled={!canUndo} onClick={() => setConfirming(r.id)}>
                        {t('undo')}
                      </button>
                    )}
                  {confirming === r.id && (
                    <div className="cmp-confirm" role="alertdialog" aria-label={t('undo')}>
                      <p>{t('undoConfirm', { id: String(r.id) })}</p>
                      {later.length > 0 && (
                        <p className="cmp-warn">
                          {t('undoAlso', {
                            ids: later.map((id) => `#${id}`).join(', '),
                            count: later.length,
                          })}
                        </p>
                      )}
                      <div className="cmp-confirm-actions">
                        <button
                          type="button"
                          className="cmp-danger"
                          disabled={busy}
                          onClick={() => {
                            setBusy(true);
                            void onUndo(r.id).finally(() => {
                              setBusy(false);
                              setConfirming(null);
                            });
                          }}
                        >
                          {t('undoConfirmYes')}
                        </button>
                        <button type="button" onClick={() => setConfirming(null)}>
                          {t('keep')}
                        </button>
                      </div>
                    </div>
                  )}
                </div>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
