import { useState } from 'react';
import type { RewindPreview } from '../../../../shared/api/compaction-api';
import { useApi } from '../../api/api-context';
import { useT } from '../../i18n/use-t';
import { compactionStrings } from './strings';

/** Rewind to a message: a seq, a preview of what leaves the context, then a confirm. */
export function RewindForm({
  uuid,
  disabled,
  onRewound,
  onError,
}: {
  uuid: string;
  disabled: boolean;
  onRewound(message: string): void;
  onError(message: string): void;
}) {
  const t = useT(compactionStrings);
  const api = useApi();
  const [text, setText] = useState('');
  const [preview, setPreview] = useState<{ seq: number; result: RewindPreview } | null>(null);
  const [busy, setBusy] = useState(false);
  const seq = Number(text);
  const valid = Number.isInteger(seq) && seq >= 1 && (!preview || seq <= preview.result.lastSeq);
  const fail = (err: unknown): void => onError(err instanceof Error ? err.message : String(err));
  const show = (): void => {
    setBusy(true);
    api
      .previewRewind({ uuid, seq })
      .then((result) => setPreview({ seq, result }), fail)
      .finally(() => setBusy(false));
  };
  const rewind = (): void => {
    setBusy(true);
    api
      .rewindTask({ uuid, seq })
      .then((r) => {
        setPreview(null);
        onRewound(t('rewindDone', { count: r.hiddenCount, id: String(r.recordId) }));
      }, fail)
      .finally(() => setBusy(false));
  };
  const p = preview?.seq === seq ? preview.result : null;
  return (
    <div className="cmp-rewind">
      <p className="cmp-sub">{t('rewindHint')}</p>
      <div className="cmp-rewind-row">
        <label htmlFor="cmp-rewind-seq">{t('rewindSeq')}</label>
        <input
          id="cmp-rewind-seq"
          inputMode="numeric"
          value={text}
          disabled={disabled}
          aria-invalid={text !== '' && !valid}
          onChange={(e) => setText(e.target.value)}
        />
        <button type="button" disabled={disabled || busy || !valid} onClick={show}>
          {t('rewindPreview')}
        </button>
      </div>
      {text !== '' && !valid && preview && (
        <p className="cmp-field-error">{t('rewindBadSeq', { max: preview.result.lastSeq })}</p>
      )}
      {p && (
        <div className="cmp-confirm" role="alertdialog" aria-label={t('rewindTitle')}>
          {p.hiddenCount === 0 ? (
            <p>{t('rewindNothing')}</p>
          ) : (
            <p>
              {t('rewindLeaves', {
                count: p.hiddenCount,
                tokens: p.hiddenTokens,
                from: String(p.firstHiddenSeq ?? ''),
                to: String(p.lastHiddenSeq ?? ''),
              })}
            </p>
          )}
          {p.undone.length > 0 && (
            <p className="cmp-warn">
              {t('rewindUndoes', {
                ids: p.undone.map((id) => `#${id}`).join(', '),
                count: p.undone.length,
              })}
            </p>
          )}
          <div className="cmp-confirm-actions">
            <button
              type="button"
              className="cmp-danger"
              disabled={disabled || busy || p.hiddenCount === 0}
              onClick={rewind}
            >
              {t('rewindConfirm')}
            </button>
            <button type="button" onClick={() => setPreview(null)}>
              {t('keep')}
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
