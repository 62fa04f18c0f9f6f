import { useEffect, useState } from 'react';
import type { ExportEstimateInfo, ExportResultInfo } from '../../../../shared/api/transfer-api';
import { EXPORT_FORMATS } from '../../../../shared/api/transfer-api';
import { useApi } from '../../api/api-context';
import { FormField } from '../../components/form-field';
import { ModalDialog } from '../../components/modal-dialog';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { transferStrings } from './strings';
import { canUpload, pickExportFolder, prepareDownload, startDownload } from './web-transfer';

type Format = (typeof EXPORT_FORMATS)[number];

/** Export tasks: downloaded in the browser, written to a host folder in the desktop app. */
const EXTENSIONS: Record<Format, string> = {
  archive: 'zip',
  markdown: 'md',
  openai: 'json',
  html: 'html',
};

/** The formats that hold the whole task, never the current context alone. */
const HISTORY_ONLY: readonly Format[] = ['archive', 'html'];

type Redactions = ExportResultInfo['redactions'];

/** The file name a single task's export gets unless the user names it. */
export function defaultExportName(uuid: string, current: boolean, format: Format): string {
  return `${uuid.slice(0, 8)}-${current ? 'context' : 'history'}.${EXTENSIONS[format]}`;
}

/** Export tasks: downloaded in the browser, written to a host folder in the desktop app. */
export function ExportDialog({ uuids, onClose }: { uuids: string[]; onClose(): void }) {
  const t = useT(transferStrings);
  const fmt = useFormat();
  const api = useApi();
  const [format, setFormat] = useState<Format>('archive');
  const [current, setCurrent] = useState(false);
  const [output, setOutput] = useState('');
  const [name, setName] = useState('');
  const single = uuids.length === 1;
  const suggested = single ? defaultExportName(uuids[0]!, current, format) : '';
  const fileName = (name.trim() || suggested).replace(/[\\/]/g, '_');
  const choose = (wantCurrent: boolean): void => {
    setCurrent(wantCurrent);
    // An archive and a page are the whole task; the current context exports as Markdown or
    // OpenAI JSON.
    if (wantCurrent && HISTORY_ONLY.includes(format)) setFormat('markdown');
  };
  // A page is made to be shared: redacted unless the person says otherwise.
  const [redactChoice, setRedactChoice] = useState<boolean | null>(null);
  const redact = redactChoice ?? format === 'html';
  const [redactHome, setRedactHome] = useState(false);
  const redaction = { secrets: redact, home: redact && redactHome };
  const size = useExportSize(uuids, format, current);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string }[]>([]);
  const web = canUpload();

  const redactionLine = (redactions: Redactions): { ok: boolean; text: string } => {
    if (!redactions) return { ok: true, text: t('notRedacted') };
    let secrets = 0;
    let places = 0;
    for (const [kind, c] of Object.entries(redactions)) {
      if (kind === 'home-folder') continue;
      secrets += c.secrets;
      places += c.places;
    }
    const home = redactions['home-folder']?.places ?? 0;
    const what = [
      secrets > 0 ? t('redactedSecrets', { count: secrets, places }) : '',
      home > 0 ? t('redactedHome', { places: home }) : '',
    ].filter(Boolean);
    return {
      ok: true,
      text: what.length ? t('redacted', { what: what.join(', ') }) : t('redactedNothing'),
    };
  };

  const submit = async (): Promise<void> => {
    setBusy(true);
    try {
      if (web) {
        const { files, redactions } = await prepareDownload({
          uuids,
          format,
          current,
          redaction,
          ...(single && fileName && { name: fileName }),
        });
        for (const f of files) startDownload(f);
        setResult([
          ...files.map((f) => ({
            ok: true,
            text: t('downloaded', { name: f.name, size: fmt.bytes(f.bytes) }),
          })),
          redactionLine(redactions),
        ]);
      } else {
        const done = await api.exportTasks({
          uuids,
          format,
          current,
          redaction,
          ...(output.trim() && {
            output: single && fileName ? joinPath(output.trim(), fileName) : output.trim(),
          }),
        });
        setResult([
          ...done.files.map((f) => ({
            ok: true,
            text: t('exported', { path: f.path, size: fmt.bytes(f.bytes) }),
          })),
          redactionLine(done.redactions),
        ]);
      }
    } catch (err) {
      setResult([{ ok: false, text: err instanceof Error ? err.message : String(err) }]);
    }
    setBusy(false);
  };

  return (
    <ModalDialog
      title={uuids.length === 1 ? t('exportOne') : t('exportTitle', { count: uuids.length })}
      className="export-dialog"
      onClose={onClose}
      onSubmit={() => void submit()}
      footer={
        <>
          <button type="button" onClick={onClose}>
            {t('close')}
          </button>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? t('exporting') : t('export')}
          </button>
        </>
      }
    >
      <fieldset className="export-what">
        <legend>{t('what')}</legend>
        <label className="check">
          <input
            type="radio"
            name="what"
            value="history"
            checked={!current}
            onChange={() => choose(false)}
          />
          <span>
            {t('whatHistory')}
            <span className="field-hint">{t('whatHistoryHint')}</span>
          </span>
        </label>
        <label className="check">
          <input
            type="radio"
            name="what"
            value="current"
            checked={current}
            onChange={() => choose(true)}
          />
          <span>
            {t('whatCurrent')}
            <span className="field-hint">{t('whatCurrentHint')}</span>
          </span>
        </label>
      </fieldset>
      <FormField name="format" label={t('format')}>
        <select name="format" value={format} onChange={(e) => setFormat(e.target.value as Format)}>
          {EXPORT_FORMATS.filter((f) => !(current && HISTORY_ONLY.includes(f))).map((f) => (
            <option key={f} value={f}>
              {t(f)}
            </option>
          ))}
        </select>
      </FormField>
      <fieldset className="export-redaction">
        <label className="check">
          <input
            type="checkbox"
            name="redact"
            checked={redact}
            onChange={(e) => setRedactChoice(e.target.checked)}
          />
          <span>
            {t('redact')}
            <span className="field-hint">{t('redactHint')}</span>
          </span>
        </label>
        <label className="check">
          <input
            type="checkbox"
            name="redact-home"
            checked={redact && redactHome}
            disabled={!redact}
            onChange={(e) => setRedactHome(e.target.checked)}
          />
          <span>{t('redactHome')}</span>
        </label>
      </fieldset>
      {single && (web || output.trim() !== '') && (
        <FormField name="file-name" label={t('fileName')} hint={t('fileNameHint')}>
          <input
            name="file-name"
            value={name}
            placeholder={suggested}
            onChange={(e) => setName(e.target.value)}
          />
        </FormField>
      )}
      {!web && (
        <FormField name="output" label={t('output')} hint={t('outputHint')}>
          <span className="path-row">
            <input name="output" value={output} onChange={(e) => setOutput(e.target.value)} />
            {window.desktop && (
              <button
                type="button"
                name="pick-folder"
                onClick={() =>
                  void pickExportFolder().then(
                    (folder) => folder && setOutput(folder),
                    (err: unknown) =>
                      setResult([
                        { ok: false, text: err instanceof Error ? err.message : String(err) },
                      ]),
                  )
                }
              >
                {t('pickFolder')}
              </button>
            )}
          </span>
        </FormField>
      )}
      <p className="export-size" data-testid="export-size" aria-live="polite">
        {size.kind === 'ready'
          ? size.estimate.files === 1
            ? t('size', { size: fmt.bytes(size.estimate.bytes) })
            : t('sizeFiles', { size: fmt.bytes(size.estimate.bytes), files: size.estimate.files })
          : size.kind === 'error'
            ? t('sizeUnknown', { error: size.message })
            : t('sizing')}
      </p>
      {result.length > 0 && (
        <ul className="transfer-log" aria-live="polite">
          {result.map((r, i) => (
            <li key={i} className={r.ok ? 'log-ok' : 'log-error'}>
              {r.text}
            </li>
          ))}
        </ul>
      )}
    </ModalDialog>
  );
}

type SizeState =
  | { kind: 'loading' }
  | { kind: 'ready'; estimate: ExportEstimateInfo }
  | { kind: 'error'; message: string };

/** The export's size for the choices on screen, asked again whenever they change. */
function useExportSize(uuids: string[], format: Format, current: boolean): SizeState {
  const api = useApi();
  const [state, setState] = useState<SizeState>({ kind: 'loading' });
  const key = uuids.join(',');
  useEffect(() => {
    let live = true;
    setState({ kind: 'loading' });
    api.estimateExport({ uuids: key.split(','), format, current }).then(
      (estimate) => live && setState({ kind: 'ready', estimate }),
      (err: unknown) =>
        live &&
        setState({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      live = false;
    };
  }, [api, key, format, current]);
  return state;
}

function joinPath(folder: string, file: string): string {
  const sep = folder.includes('\\') && !folder.includes('/') ? '\\' : '/';
  return folder.endsWith(sep) ? folder + file : folder + sep + file;
}
