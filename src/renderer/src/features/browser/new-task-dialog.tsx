import { useEffect, useState } from 'react';
import { ApiError } from '../../../../shared/api/api-result';
import type { StrategyName } from '../../../../shared/strategy-names';
import { useApi } from '../../api/api-context';
import { FormField } from '../../components/form-field';
import { ModalDialog } from '../../components/modal-dialog';
import { useT } from '../../i18n/use-t';
import { navigate } from '../../router/use-route';
import { newTaskStrings } from './new-task-strings';

type Provider = 'openai' | 'ollama' | 'lmstudio';
type PresetKey =
  | 'presetSummary'
  | 'presetRetain'
  | 'presetTrim'
  | 'presetImportance'
  | 'presetCondense'
  | 'presetOffline';

/** Compaction presets: a pipeline of strategies (DESIGN.md §5), named for what they do. */
const PRESETS: Record<PresetKey, StrategyName[]> = {
  presetSummary: ['summarize'],
  presetRetain: ['retain-summary'],
  presetTrim: ['tool-output-trim', 'summarize'],
  presetImportance: ['importance-window'],
  presetCondense: ['condense'],
  presetOffline: ['extractive'],
};

/** Starts a task process with startTask; errors land next to the field they name. */
export function NewTaskDialog({ onClose }: { onClose(): void }) {
  const t = useT(newTaskStrings);
  const api = useApi();
  const [prompt, setPrompt] = useState('');
  const [title, setTitle] = useState('');
  const [workdir, setWorkdir] = useState('');
  const [provider, setProvider] = useState<Provider | ''>('');
  const [model, setModel] = useState('');
  const [preset, setPreset] = useState<PresetKey | ''>('');
  const [maxTurns, setMaxTurns] = useState('50');
  const [configured, setConfigured] = useState<Provider | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api.getSettings().then(
      (v) => setConfigured(v.settings.llm.provider),
      () => undefined, // the default provider label is only a hint
    );
  }, [api]);

  const submit = async (): Promise<void> => {
    const missing: Record<string, string> = {};
    if (!prompt.trim()) missing.prompt = t('required');
    if (!workdir.trim()) missing.workdir = t('required');
    setErrors(missing);
    if (Object.keys(missing).length) return;
    setBusy(true);
    try {
      const { uuid } = await api.startTask({
        prompt,
        workdir: workdir.trim(),
        ...(title.trim() && { title: title.trim() }),
        ...(provider && { provider }),
        ...(model.trim() && { model: model.trim() }),
        ...(preset && { compaction: PRESETS[preset] }),
        ...(maxTurns && { maxTurns: Number(maxTurns) }),
      });
      onClose();
      navigate({ page: 'tasks' });
      void uuid;
    } catch (err) {
      const field = err instanceof ApiError && err.field ? err.field.split(/[.[]/)[0]! : 'form';
      setErrors({ [field]: err instanceof Error ? err.message : String(err) });
    } finally {
      setBusy(false);
    }
  };

  const known = new Set([
    'prompt',
    'workdir',
    'title',
    'provider',
    'model',
    'maxTurns',
    'compaction',
  ]);
  const formError = Object.entries(errors).find(([k]) => !known.has(k))?.[1];
  return (
    <ModalDialog
      title={t('title')}
      className="new-task-dialog"
      onClose={onClose}
      onSubmit={() => void submit()}
      footer={
        <>
          <button type="button" onClick={onClose}>
            {t('cancel')}
          </button>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? t('starting') : t('start')}
          </button>
        </>
      }
    >
      {formError && (
        <div className="form-error" role="alert">
          {formError}
        </div>
      )}
      <FormField name="prompt" label={t('prompt')} hint={t('promptHint')} error={errors.prompt}>
        <textarea
          name="prompt"
          rows={5}
          autoFocus
          value={prompt}
          aria-invalid={Boolean(errors.prompt)}
          onChange={(e) => {
            setPrompt(e.target.value);
            setErrors(({ prompt: _p, ...rest }) => rest);
          }}
        />
      </FormField>
      <div className="field-row">
        <FormField name="title" label={t('taskTitle')} error={errors.title}>
          <input name="title" value={title} onChange={(e) => setTitle(e.target.value)} />
        </FormField>
        <FormField
          name="workdir"
          label={t('workdir')}
          hint={t('workdirHint')}
          error={errors.workdir}
        >
          <input
            name="workdir"
            value={workdir}
            placeholder="/home/me/project"
            aria-invalid={Boolean(errors.workdir)}
            onChange={(e) => {
              setWorkdir(e.target.value);
              setErrors(({ workdir: _w, ...rest }) => rest);
            }}
          />
        </FormField>
      </div>
      <div className="field-row">
        <FormField name="provider" label={t('provider')} error={errors.provider}>
          <select
            name="provider"
            value={provider}
            onChange={(e) => setProvider(e.target.value as Provider | '')}
          >
            <option value="">{t('providerDefault', { provider: configured ?? '…' })}</option>
            <option value="openai">{t('openaiCompatible')}</option>
            <option value="ollama">Ollama</option>
            <option value="lmstudio">LM Studio</option>
          </select>
        </FormField>
        <FormField name="model" label={t('model')} hint={t('modelHint')} error={errors.model}>
          <input name="model" value={model} onChange={(e) => setModel(e.target.value)} />
        </FormField>
      </div>
      <div className="field-row">
        <FormField name="compaction" label={t('preset')} error={errors.compaction}>
          <select
            name="compaction"
            value={preset}
            onChange={(e) => setPreset(e.target.value as PresetKey | '')}
          >
            <option value="">{t('presetDefault')}</option>
            {(Object.keys(PRESETS) as PresetKey[]).map((k) => (
              <option key={k} value={k}>
                {t(k)}
              </option>
            ))}
          </select>
        </FormField>
        <FormField name="maxTurns" label={t('maxTurns')} error={errors.maxTurns}>
          <input
            name="maxTurns"
            type="number"
            min={1}
            max={10000}
            value={maxTurns}
            aria-invalid={Boolean(errors.maxTurns)}
            onChange={(e) => setMaxTurns(e.target.value)}
          />
        </FormField>
      </div>
    </ModalDialog>
  );
}
