import { useState } from 'react';
import {
  COMPACTION_STRATEGIES,
  type CompactionStrategyName,
} from '../../../../shared/api/compaction-api';
import type { SettingsPatch, SettingsView } from '../../../../shared/api/settings-api';
import { FormField } from '../../components/form-field';
import { SegmentedControl } from '../../components/segmented-control';
import { useT } from '../../i18n/use-t';
import { useUiStore, type Language, type ThemeChoice } from '../../state/ui-store';
import { ProviderTest } from './provider-test';
import { settingsStrings } from './strings';

type Provider = 'openai' | 'ollama' | 'lmstudio';
type SaveResult = { field: string; message: string } | string;

/** The editable subset of config.yaml; only changed values are sent (keeps `${VAR}`s as written). */
export function SettingsForm({
  view,
  onSave,
}: {
  view: SettingsView;
  onSave(patch: SettingsPatch): Promise<SaveResult>;
}) {
  const t = useT(settingsStrings);
  const s = view.settings;
  const { theme, language, setTheme, setLanguage } = useUiStore();
  const [provider, setProvider] = useState<Provider>(s.llm.provider);
  const [baseUrl, setBaseUrl] = useState(s.llm[s.llm.provider].base_url);
  const [model, setModel] = useState(s.llm[s.llm.provider].model ?? '');
  const [pipeline, setPipeline] = useState<CompactionStrategyName[]>(s.compaction.pipeline);
  const [threshold, setThreshold] = useState(String(s.compaction.threshold_ratio));
  const [keepRecent, setKeepRecent] = useState(String(s.storage.keep_recent_messages));
  const [retainTurns, setRetainTurns] = useState(String(s.compaction.retain_last_turns));
  const [auto, setAuto] = useState(s.compaction.auto);
  const [cleanup, setCleanup] = useState(String(s.storage.cleanup_days));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const switchProvider = (p: Provider): void => {
    setProvider(p);
    setBaseUrl(s.llm[p].base_url);
    setModel(s.llm[p].model ?? '');
  };
  // Numbers go to the server as typed; its validation names the field that is wrong.
  const num = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text));

  const buildPatch = (): SettingsPatch => {
    const llm: NonNullable<SettingsPatch['llm']> = {};
    if (provider !== s.llm.provider) llm.provider = provider;
    const section: { base_url?: string; model?: string | null } = {};
    if (baseUrl !== s.llm[provider].base_url) section.base_url = baseUrl;
    if ((model || null) !== s.llm[provider].model) section.model = model || null;
    if (Object.keys(section).length) llm[provider] = section;
    const compaction: NonNullable<SettingsPatch['compaction']> = {};
    if (JSON.stringify(pipeline) !== JSON.stringify(s.compaction.pipeline))
      compaction.pipeline = pipeline;
    if (num(threshold) !== s.compaction.threshold_ratio)
      compaction.threshold_ratio = num(threshold);
    if (num(retainTurns) !== s.compaction.retain_last_turns)
      compaction.retain_last_turns = num(retainTurns);
    if (auto !== s.compaction.auto) compaction.auto = auto;
    const storage: NonNullable<SettingsPatch['storage']> = {};
    if (num(keepRecent) !== s.storage.keep_recent_messages)
      storage.keep_recent_messages = num(keepRecent);
    if (num(cleanup) !== s.storage.cleanup_days) storage.cleanup_days = num(cleanup);
    return {
      ...(Object.keys(llm).length && { llm }),
      ...(Object.keys(compaction).length && { compaction }),
      ...(Object.keys(storage).length && { storage }),
    };
  };

  const submit = async (): Promise<void> => {
    setBusy(true);
    setErrors({});
    setStatus(null);
    const result = await onSave(buildPatch());
    setBusy(false);
    if (typeof result === 'string') setStatus(result);
    else setErrors({ [result.field.replace(/^patch\./, '')]: result.message });
  };

  const order = [...pipeline, ...COMPACTION_STRATEGIES.filter((x) => !pipeline.includes(x))];
  const apiKeyRef = view.references[`llm.${provider}.api_key`];
  const known = /^(llm|compaction|storage)\./;
  const formError = Object.entries(errors).find(([k]) => !known.test(k));
  return (
    <form
      className="settings-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <fieldset>
        <legend>{t('providers')}</legend>
        <div className="field-row">
          <FormField name="llm.provider" label={t('provider')} error={errors['llm.provider']}>
            <select
              name="provider"
              value={provider}
              onChange={(e) => switchProvider(e.target.value as Provider)}
            >
              <option value="openai">{t('openaiCompatible')}</option>
              <option value="ollama">Ollama</option>
              <option value="lmstudio">LM Studio</option>
            </select>
          </FormField>
          <FormField
            name={`llm.${provider}.model`}
            label={t('model')}
            error={errors[`llm.${provider}.model`]}
          >
            <input
              name="model"
              value={model}
              placeholder={t('modelNone')}
              onChange={(e) => setModel(e.target.value)}
            />
          </FormField>
        </div>
        <FormField
          name={`llm.${provider}.base_url`}
          label={t('baseUrl')}
          error={errors[`llm.${provider}.base_url`]}
        >
          <input
            name="base_url"
            value={baseUrl}
            aria-invalid={Boolean(errors[`llm.${provider}.base_url`])}
            onChange={(e) => setBaseUrl(e.target.value)}
          />
        </FormField>
        {provider !== 'ollama' && (
          <p className="field-hint">
            {t('apiKey')}: {apiKeyRef ? t('apiKeyHint', { ref: apiKeyRef }) : t('apiKeyNone')}
          </p>
        )}
        <ProviderTest provider={provider} baseUrl={baseUrl} />
      </fieldset>

      <fieldset>
        <legend>{t('compaction')}</legend>
        <FormField
          name="compaction.pipeline"
          label={t('pipeline')}
          hint={t('pipelineHint')}
          error={errors['compaction.pipeline']}
        >
          <span className="pipeline-picker">
            {order.map((name) => (
              <label key={name} className="check">
                <input
                  type="checkbox"
                  name={`pipeline-${name}`}
                  checked={pipeline.includes(name)}
                  onChange={(e) =>
                    setPipeline(
                      e.target.checked ? [...pipeline, name] : pipeline.filter((x) => x !== name),
                    )
                  }
                />
                {pipeline.includes(name) && (
                  <span className="step">{pipeline.indexOf(name) + 1}</span>
                )}
                <code>{name}</code>
              </label>
            ))}
          </span>
        </FormField>
        <div className="field-row">
          <FormField
            name="compaction.threshold_ratio"
            label={t('threshold')}
            hint={t('thresholdHint')}
            error={errors['compaction.threshold_ratio']}
          >
            <input
              name="threshold_ratio"
              inputMode="decimal"
              value={threshold}
              aria-invalid={Boolean(errors['compaction.threshold_ratio'])}
              onChange={(e) => setThreshold(e.target.value)}
            />
          </FormField>
          <FormField
            name="storage.keep_recent_messages"
            label={t('keepRecent')}
            error={errors['storage.keep_recent_messages']}
          >
            <input
              name="keep_recent_messages"
              inputMode="numeric"
              value={keepRecent}
              aria-invalid={Boolean(errors['storage.keep_recent_messages'])}
              onChange={(e) => setKeepRecent(e.target.value)}
            />
          </FormField>
          <FormField
            name="compaction.retain_last_turns"
            label={t('retainTurns')}
            error={errors['compaction.retain_last_turns']}
          >
            <input
              name="retain_last_turns"
              inputMode="numeric"
              value={retainTurns}
              aria-invalid={Boolean(errors['compaction.retain_last_turns'])}
              onChange={(e) => setRetainTurns(e.target.value)}
            />
          </FormField>
        </div>
        <label className="check">
          <input
            type="checkbox"
            name="auto"
            checked={auto}
            onChange={(e) => setAuto(e.target.checked)}
          />
          {t('auto')}
        </label>
      </fieldset>

      <fieldset>
        <legend>{t('storage')}</legend>
        <FormField
          name="contexts_dir"
          label={t('contexts')}
          hint={t('contextsFrom', { source: s.contexts_dir ? t('fromConfig') : t('fromHost') })}
        >
          <input name="contexts_dir" value={view.contextsRoot} readOnly />
        </FormField>
        <FormField
          name="storage.cleanup_days"
          label={t('cleanup')}
          hint={t('cleanupHint')}
          error={errors['storage.cleanup_days']}
        >
          <input
            name="cleanup_days"
            inputMode="numeric"
            value={cleanup}
            aria-invalid={Boolean(errors['storage.cleanup_days'])}
            onChange={(e) => setCleanup(e.target.value)}
          />
        </FormField>
        {view.envOverrides.length > 0 && (
          <p className="field-hint">{t('envOverride', { list: view.envOverrides.join(', ') })}</p>
        )}
      </fieldset>

      <fieldset>
        <legend>{t('appearance')}</legend>
        <div className="field-row">
          <div className="field">
            <span>{t('theme')}</span>
            <SegmentedControl<ThemeChoice>
              name="settings-theme"
              label={t('theme')}
              value={theme}
              onChange={setTheme}
              options={[
                { value: 'system', label: t('system') },
                { value: 'light', label: t('light') },
                { value: 'dark', label: t('dark') },
              ]}
            />
          </div>
          <div className="field">
            <span>{t('language')}</span>
            <SegmentedControl<Language>
              name="settings-language"
              label={t('language')}
              value={language}
              onChange={setLanguage}
              options={[
                { value: 'en', label: 'English' },
                { value: 'ja', label: '日本語' },
              ]}
            />
          </div>
        </div>
      </fieldset>

      <div className="form-actions">
        {formError && (
          <span className="form-error" role="alert">
            {formError[1]}
          </span>
        )}
        {status && (
          <span className="form-ok" role="status">
            {status}
          </span>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? t('saving') : t('save')}
        </button>
      </div>
    </form>
  );
}
