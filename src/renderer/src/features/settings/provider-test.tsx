import { useState } from 'react';
import type { ProviderTestResult } from '../../../../shared/api/provider-test-api';
import { useApi } from '../../api/api-context';
import { useT } from '../../i18n/use-t';
import { settingsStrings } from './strings';

/** Pings the provider as typed (the base URL need not be saved first). */
export function ProviderTest(props: {
  provider: 'openai' | 'ollama' | 'lmstudio';
  baseUrl: string;
}) {
  const t = useT(settingsStrings);
  const api = useApi();
  const [state, setState] = useState<'idle' | 'testing' | ProviderTestResult>('idle');
  const run = async (): Promise<void> => {
    setState('testing');
    try {
      const url = props.baseUrl.trim();
      setState(await api.testProvider({ provider: props.provider, ...(url && { baseUrl: url }) }));
    } catch (err) {
      setState({ ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  };
  return (
    <div className="provider-test">
      <button
        type="button"
        name="test-provider"
        onClick={() => void run()}
        disabled={state === 'testing'}
      >
        {state === 'testing' ? t('testing') : t('test')}
      </button>
      {typeof state === 'object' && (
        <span
          className={state.ok ? 'form-ok' : 'field-error'}
          role="status"
          data-testid="provider-test-result"
        >
          {state.ok
            ? t('testOk', { count: state.models.length })
            : t('testFail', { error: state.error })}
          {state.ok && state.models.length > 0 && (
            <span className="field-hint"> — {state.models.slice(0, 6).join(', ')}</span>
          )}
        </span>
      )}
    </div>
  );
}
