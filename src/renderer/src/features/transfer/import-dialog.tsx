import { useState, type DragEvent } from 'react';
import type { ImportResultInfo } from '../../../../shared/api/transfer-api';
import { useApi } from '../../api/api-context';
import { FormField } from '../../components/form-field';
import { ModalDialog } from '../../components/modal-dialog';
import { useT } from '../../i18n/use-t';
import { transferStrings } from './strings';
import { canUpload, pickImportFiles, uploadAndImport } from './web-transfer';

interface Line {
  tone: 'ok' | 'error' | 'busy';
  text: string;
}

/** Import by file picker or drop (uploaded in the browser), or by host paths. */
export function ImportDialog({ onClose }: { onClose(): void }) {
  const t = useT(transferStrings);
  const api = useApi();
  const [lines, setLines] = useState<Line[]>([]);
  const [paths, setPaths] = useState('');
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState(false);
  const upload = canUpload();

  const report = (result: ImportResultInfo): Line[] => [
    ...result.results.map((r) => ({
      tone: 'ok' as const,
      text: t('imported', { file: baseName(r.file), count: r.tasks.length }),
    })),
    ...result.failed.map((f) => ({
      tone: 'error' as const,
      text: t('failed', { file: baseName(f.file), error: f.error }),
    })),
  ];

  const importFiles = async (files: File[]): Promise<void> => {
    setBusy(true);
    for (const file of files) {
      setLines((l) => [...l, { tone: 'busy', text: t('importing', { name: file.name }) }]);
      let done: Line[];
      try {
        done = report(await uploadAndImport(file));
      } catch (err) {
        done = [{ tone: 'error', text: t('failed', { file: file.name, error: message(err) }) }];
      }
      setLines((l) => [...l.filter((x) => x.tone !== 'busy'), ...done]);
    }
    setBusy(false);
  };

  const importPaths = async (chosen?: string[]): Promise<void> => {
    const list =
      chosen ??
      paths
        .split('\n')
        .map((p) => p.trim())
        .filter(Boolean);
    if (!list.length) return;
    setBusy(true);
    try {
      const result = await api.importFiles({ paths: list });
      setLines((l) => [...l, ...report(result)]);
    } catch (err) {
      setLines((l) => [...l, { tone: 'error', text: message(err) }]);
    }
    setBusy(false);
  };

  const onDrop = (e: DragEvent<HTMLElement>): void => {
    e.preventDefault();
    setOver(false);
    void importFiles([...e.dataTransfer.files]);
  };

  return (
    <ModalDialog
      title={t('importTitle')}
      className="import-dialog"
      onClose={onClose}
      onSubmit={() => void importPaths()}
      footer={
        <>
          <button type="button" onClick={onClose}>
            {t('close')}
          </button>
          {!upload && (
            <button type="submit" className="primary" disabled={busy}>
              {t('importPaths')}
            </button>
          )}
        </>
      }
    >
      <p className="field-hint">{t('importIntro')}</p>
      {upload ? (
        <label
          className={`drop-zone${over ? ' over' : ''}`}
          onDragOver={(e) => {
            e.preventDefault();
            setOver(true);
          }}
          onDragLeave={() => setOver(false)}
          onDrop={onDrop}
        >
          <span>{t('drop')}</span> <span className="link-like">{t('pick')}</span>
          <input
            type="file"
            multiple
            name="files"
            className="visually-hidden"
            disabled={busy}
            onChange={(e) => void importFiles([...(e.target.files ?? [])])}
          />
        </label>
      ) : (
        <>
          {window.desktop && (
            <button
              type="button"
              name="pick-files"
              className="pick-button"
              disabled={busy}
              onClick={() =>
                void pickImportFiles().then(
                  (chosen) => {
                    if (!chosen.length) return;
                    setPaths(chosen.join('\n'));
                    void importPaths(chosen);
                  },
                  (err: unknown) => setLines((l) => [...l, { tone: 'error', text: message(err) }]),
                )
              }
            >
              {t('pick')}
            </button>
          )}
          <FormField name="paths" label={t('paths')} hint={t('pathsHint')}>
            <textarea
              name="paths"
              rows={4}
              value={paths}
              onChange={(e) => setPaths(e.target.value)}
            />
          </FormField>
        </>
      )}
      {lines.length > 0 && (
        <ul className="transfer-log" aria-live="polite">
          {lines.map((l, i) => (
            <li key={i} className={`log-${l.tone}`}>
              {l.text}
            </li>
          ))}
        </ul>
      )}
    </ModalDialog>
  );
}

function baseName(file: string): string {
  return file.split(/[\\/]/).pop() ?? file;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
