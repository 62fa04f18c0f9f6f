import { useState } from 'react';
import {
  COMPACTION_STRATEGIES,
  type CompactionStrategyName,
} from '../../../../shared/api/compaction-api';
import { useT } from '../../i18n/use-t';
import { useUiStore } from '../../state/ui-store';

const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;
import { paramSpec, parseParam, type ParamError } from './param-fields';
import { compactionStrings } from './strings';

/** A strategy in the picker with its parameters as the fields show them. */
export interface PickedStep {
  name: CompactionStrategyName;
  texts: Record<string, string>;
}

/** Why a field is invalid, as a translated message. */
export function useParamError(): (error: ParamError) => string {
  const t = useT(compactionStrings);
  return (error) =>
    error.key === 'invalidRange'
      ? t('invalidRange', { min: error.min, max: error.max })
      : error.key === 'invalidMin'
        ? t('invalidMin', { min: error.min })
        : t(error.key);
}

/** Choose and order strategies, each with its parameters (defaults from the server). */
export function PipelinePicker({
  steps,
  defaults,
  disabled,
  onChange,
  textOf,
}: {
  steps: readonly PickedStep[];
  defaults: Record<CompactionStrategyName, Record<string, unknown>>;
  disabled: boolean;
  onChange(steps: PickedStep[]): void;
  textOf(name: CompactionStrategyName): PickedStep;
}) {
  const t = useT(compactionStrings);
  const explain = useParamError();
  const language = useUiStore((st) => st.language);
  // The seed's default summary prompt is Japanese: in the English UI it stays folded behind
  // a sentence saying so, unless the user opens it (or has changed it).
  const [revealed, setRevealed] = useState<ReadonlySet<string>>(new Set());
  const unused = COMPACTION_STRATEGIES.filter((n) => !steps.some((s) => s.name === n));
  const [adding, setAdding] = useState<CompactionStrategyName | ''>('');
  const move = (i: number, by: number): void => {
    const next = [...steps];
    const [step] = next.splice(i, 1);
    next.splice(i + by, 0, step!);
    onChange(next);
  };
  const choice: CompactionStrategyName | undefined =
    adding !== '' && unused.includes(adding) ? adding : unused.at(0);
  return (
    <div className="cmp-pipeline">
      <p className="cmp-sub">{t('pipelineHint')}</p>
      {steps.length === 0 && <p className="cmp-field-error">{t('emptyPipeline')}</p>}
      <ol className="cmp-steps">
        {steps.map((step, i) => (
          <li key={step.name} className="cmp-step">
            <div className="cmp-step-head">
              <span className="cmp-step-n">{i + 1}</span>
              <code className="cmp-step-name">{step.name}</code>
              <span className="cmp-step-actions">
                <button
                  type="button"
                  disabled={disabled || i === 0}
                  onClick={() => move(i, -1)}
                  aria-label={`${t('moveUp')} ${step.name}`}
                  title={t('moveUp')}
                >
                  ↑
                </button>
                <button
                  type="button"
                  disabled={disabled || i === steps.length - 1}
                  onClick={() => move(i, 1)}
                  aria-label={`${t('moveDown')} ${step.name}`}
                  title={t('moveDown')}
                >
                  ↓
                </button>
                <button
                  type="button"
                  disabled={disabled}
                  onClick={() => onChange(steps.map((s, j) => (j === i ? textOf(s.name) : s)))}
                  title={t('resetDefaults')}
                >
                  {t('resetDefaults')}
                </button>
                <button
                  type="button"
                  disabled={disabled}
                  onClick={() => onChange(steps.filter((_, j) => j !== i))}
                  aria-label={`${t('remove')} ${step.name}`}
                >
                  {t('remove')}
                </button>
              </span>
            </div>
            <div
              className="cmp-params"
              role="group"
              aria-label={t('paramsOf', { name: step.name })}
            >
              {Object.entries(defaults[step.name]).map(([param, def]) => {
                const spec = paramSpec(param, def);
                const text = step.texts[param] ?? '';
                const parsed = parseParam(spec, text);
                const set = (value: string): void =>
                  onChange(
                    steps.map((s, j) =>
                      j === i ? { ...s, texts: { ...s.texts, [param]: value } } : s,
                    ),
                  );
                const id = `cmp-${step.name}-${param}`;
                const long = spec.kind === 'list' || (spec.kind === 'text' && text.length > 60);
                return (
                  <label
                    key={param}
                    htmlFor={id}
                    className={`cmp-param${long ? ' cmp-param-wide' : ''}${parsed.ok ? '' : ' cmp-param-bad'}`}
                  >
                    <span className="cmp-param-name">{param}</span>
                    {spec.kind === 'fixed' ? (
                      <span id={id} className="cmp-param-fixed" title={t('paramFixed')}>
                        {text}
                      </span>
                    ) : spec.kind === 'boolean' ? (
                      <input
                        id={id}
                        type="checkbox"
                        disabled={disabled}
                        checked={text === 'true'}
                        onChange={(e) => set(String(e.target.checked))}
                      />
                    ) : long && language === 'en' && JAPANESE.test(text) && !revealed.has(id) ? (
                      <span className="cmp-param-foreign">
                        {t('promptInJapanese')}{' '}
                        <button
                          type="button"
                          className="cmp-link-button"
                          onClick={() => setRevealed((prev) => new Set(prev).add(id))}
                        >
                          {t('promptShow')}
                        </button>
                      </span>
                    ) : long ? (
                      <textarea
                        id={id}
                        rows={spec.kind === 'list' ? 3 : 4}
                        disabled={disabled}
                        value={text}
                        placeholder={spec.kind === 'list' ? t('listHint') : t('nullHint')}
                        onChange={(e) => set(e.target.value)}
                      />
                    ) : (
                      <input
                        id={id}
                        inputMode={spec.kind === 'text' ? 'text' : 'decimal'}
                        disabled={disabled}
                        value={text}
                        placeholder={spec.nullable ? t('nullHint') : ''}
                        aria-invalid={!parsed.ok}
                        onChange={(e) => set(e.target.value)}
                      />
                    )}
                    {!parsed.ok && <span className="cmp-field-error">{explain(parsed.error)}</span>}
                  </label>
                );
              })}
            </div>
          </li>
        ))}
      </ol>
      {unused.length > 0 && (
        <div className="cmp-add">
          <label htmlFor="cmp-add-strategy">{t('addStrategy')}</label>
          <select
            id="cmp-add-strategy"
            disabled={disabled}
            value={choice ?? ''}
            onChange={(e) => setAdding(e.target.value as CompactionStrategyName)}
          >
            {unused.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
          <button
            type="button"
            disabled={disabled || choice === undefined}
            onClick={() => choice !== undefined && onChange([...steps, textOf(choice)])}
          >
            {t('add')}
          </button>
        </div>
      )}
    </div>
  );
}
