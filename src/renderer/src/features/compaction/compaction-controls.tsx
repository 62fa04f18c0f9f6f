import { useCallback, useEffect, useMemo, useState } from 'react';
import type {
  CompactionDefaults,
  CompactionRecordInfo,
  CompactionReport,
  CompactionStrategyName,
} from '../../../../shared/api/compaction-api';
import type { TaskStatus } from '../../../../shared/task-types';
import { useApi } from '../../api/api-context';
import { useT } from '../../i18n/use-t';
import { CompactionList } from './compaction-list';
import { CompactionReportView } from './compaction-report-view';
import { CompactionState } from './compaction-state';
import { paramSpec, paramText, parseParam, type ParamValue } from './param-fields';
import { PipelinePicker, type PickedStep } from './pipeline-picker';
import { RewindForm } from './rewind-form';
import { StrategyCompare } from './strategy-compare';
import { compactionStrings } from './strings';
import './compaction.css';

type Loaded = { defaults: CompactionDefaults; records: CompactionRecordInfo[] };
type Progress = { n: number; total: number; strategy: string };

/**
 * The compaction controls of a task (rendered by the task view's "compactions" tab): a
 * pipeline picker, preview, run with progress and cancel, the list of compactions with
 * undo and diff links, and rewind. `onChanged` is called after anything that changed the
 * task's context, so the host can re-read it.
 */
export function CompactionControls({
  uuid,
  status,
  onChanged,
}: {
  uuid: string;
  status: TaskStatus;
  onChanged?: () => void;
}) {
  const t = useT(compactionStrings);
  const api = useApi();
  const [loaded, setLoaded] = useState<Loaded | { error: string } | null>(null);
  const [revision, setRevision] = useState(0);
  const [steps, setSteps] = useState<PickedStep[] | null>(null);
  const [report, setReport] = useState<CompactionReport | null>(null);
  const [busy, setBusy] = useState<'preview' | 'run' | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [notice, setNotice] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);
  const running = status === 'running';

  useEffect(() => {
    let live = true;
    Promise.all([api.compactionDefaults({ uuid }), api.listCompactions({ uuid })]).then(
      ([defaults, list]) => live && setLoaded({ defaults, records: list.records }),
      (err: unknown) =>
        live && setLoaded({ error: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      live = false;
    };
  }, [api, uuid, revision]);

  // Per-step progress of a run this page started (the host publishes one event per step).
  useEffect(
    () =>
      api.onEvent((event) => {
        if (event.type === 'compaction-step' && event.uuid === uuid)
          setProgress({ n: event.index + 2, total: event.total, strategy: event.strategy });
      }),
    [api, uuid],
  );

  const defaults = loaded && 'defaults' in loaded ? loaded.defaults : null;
  const textOf = useCallback(
    (name: CompactionStrategyName): PickedStep => ({
      name,
      texts: Object.fromEntries(
        Object.entries(defaults?.params[name] ?? {}).map(([k, v]) => [k, paramText(v)]),
      ),
    }),
    [defaults],
  );
  const picked = steps ?? defaults?.pipeline.map(textOf) ?? [];

  /** The picker's values as the API takes them, or null while a field is invalid. */
  const request = useMemo(() => {
    if (!defaults || picked.length === 0) return null;
    const params: Partial<Record<CompactionStrategyName, Record<string, ParamValue>>> = {};
    for (const step of picked) {
      const values: Record<string, ParamValue> = {};
      for (const [name, def] of Object.entries(defaults.params[step.name])) {
        const spec = paramSpec(name, def);
        // A structured parameter is not edited here: the server keeps its configured value.
        if (spec.kind === 'fixed') continue;
        const parsed = parseParam(spec, step.texts[name] ?? '');
        if (!parsed.ok) return null;
        values[name] = parsed.value;
      }
      params[step.name] = values;
    }
    return { uuid, strategies: picked.map((s) => s.name), params };
  }, [defaults, picked, uuid]);

  const changed = (): void => {
    setRevision((r) => r + 1);
    onChanged?.();
  };
  const fail = (err: unknown): void =>
    setNotice({ tone: 'error', text: err instanceof Error ? err.message : String(err) });

  const preview = (): void => {
    if (!request) return;
    setBusy('preview');
    setNotice(null);
    api
      .previewCompaction(request)
      .then(setReport, fail)
      .finally(() => setBusy(null));
  };
  const run = (): void => {
    // A running task compacts itself with its configured pipeline: only the request goes.
    const input = running ? { uuid } : request;
    if (!input) return;
    setBusy('run');
    setNotice(null);
    setProgress({ n: 1, total: running ? 1 : picked.length, strategy: picked[0]?.name ?? '' });
    api
      .runCompaction(input)
      .then((result) => {
        if (result.mode === 'requested') setNotice({ tone: 'ok', text: t('requested') });
        else setReport(result.report);
        changed();
      }, fail)
      .finally(() => {
        setBusy(null);
        setProgress(null);
      });
  };
  const cancel = (): void => {
    void api.cancelCompaction({ uuid }).catch(fail);
  };
  const undo = async (id: number): Promise<void> => {
    try {
      const r = await api.undoCompaction({ uuid, id });
      setNotice({
        tone: 'ok',
        text: t('undoDone', {
          ids: r.undone.map((n) => `#${n}`).join(', '),
          before: r.tokensBefore,
          after: r.tokensAfter,
        }),
      });
      setReport(null);
      changed();
    } catch (err) {
      fail(err);
    }
  };

  if (!loaded) return <CompactionState tone="loading" title={t('loading')} />;
  if ('error' in loaded)
    return (
      <CompactionState tone="error" title={t('loadFailed')} detail={loaded.error}>
        <button type="button" onClick={() => setRevision((r) => r + 1)}>
          {t('retry')}
        </button>
      </CompactionState>
    );

  const history = (
    <section className="cmp-panel">
      <div className="cmp-panel-head">
        <h2>{t('listTitle')}</h2>
        {running && <span className="cmp-note">{t('runningRefused')}</span>}
      </div>
      <CompactionList uuid={uuid} records={loaded.records} canUndo={!running} onUndo={undo} />
    </section>
  );
  // A task with compactions is mostly read: its history comes first (Tab reaches each diff
  // at once); the pipeline to run another follows.
  const readFirst = loaded.records.length > 0;
  return (
    <div className="cmp-root cmp-controls">
      {readFirst && history}
      <section className="cmp-panel">
        <div className="cmp-panel-head">
          <h2>{t('pipelineTitle')}</h2>
          <span className="cmp-note">
            {loaded.defaults.summarizer === 'llm' ? t('summarizerLlm') : t('summarizerExtractive')}
          </span>
        </div>
        {running && <p className="cmp-running-note">{t('runningNote')}</p>}
        <PipelinePicker
          steps={picked}
          defaults={loaded.defaults.params}
          disabled={running || busy !== null}
          onChange={(next) => {
            setSteps(next);
            setReport(null);
          }}
          textOf={textOf}
        />
        <div className="cmp-run-bar">
          <button type="button" disabled={running || busy !== null || !request} onClick={preview}>
            {busy === 'preview' ? t('previewing') : t('preview')}
          </button>
          <button
            type="button"
            className="cmp-primary"
            disabled={busy !== null || (!running && !request)}
            onClick={run}
          >
            {busy === 'run' ? t('running') : running ? t('requestRun') : t('run')}
          </button>
          {busy === 'run' && !running && (
            <button type="button" onClick={cancel}>
              {t('cancel')}
            </button>
          )}
          {progress && busy === 'run' && !running && (
            <span className="cmp-progress" role="status">
              <span className="cmp-spinner cmp-spinner-small" aria-hidden="true" />
              {t('progress', {
                n: Math.min(progress.n, progress.total),
                total: progress.total,
                strategy:
                  picked[Math.min(progress.n, progress.total) - 1]?.name ?? progress.strategy,
              })}
            </span>
          )}
          {!request && !running && picked.length > 0 && (
            <span className="cmp-field-error">{t('fixParams')}</span>
          )}
        </div>
        {notice && (
          <p className={notice.tone === 'error' ? 'cmp-field-error' : 'cmp-ok'} role="status">
            {notice.text}
          </p>
        )}
        {report && <CompactionReportView report={report} />}
      </section>

      <StrategyCompare
        uuid={uuid}
        onPick={
          running
            ? undefined
            : (names) => {
                setSteps(names.map(textOf));
                setReport(null);
              }
        }
      />

      {!readFirst && history}

      <section className="cmp-panel">
        <h2>{t('rewindTitle')}</h2>
        <RewindForm
          uuid={uuid}
          disabled={running}
          onRewound={(text) => {
            setNotice({ tone: 'ok', text });
            changed();
          }}
          onError={(text) => setNotice({ tone: 'error', text })}
        />
      </section>
    </div>
  );
}
