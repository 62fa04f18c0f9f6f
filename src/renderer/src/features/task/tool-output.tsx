import { useState } from 'react';
import { MAX_TOOL_OUTPUT_LINES } from '../../../../shared/api/tool-output-limits';
import { useApi } from '../../api/api-context';
import { useT } from '../../i18n/use-t';
import { taskStrings } from './strings';

const TRIMMED = /\[tool output trimmed; ref=([A-Za-z0-9_-]{1,64})/;
const PAGE_LINES = 400;

/** The ToolOutputRef a trimmed result points to: its output_ref, or the placeholder's ref. */
export function trimmedRef(content: string | null, outputRef: string | undefined): string | null {
  if (outputRef) return outputRef;
  return (content && TRIMMED.exec(content)?.[1]) ?? null;
}

/** A trimmed tool output, read back from the task's cache window by window on request. */
export function ToolOutput({ uuid, outputRef }: { uuid: string; outputRef: string }) {
  const api = useApi();
  const t = useT(taskStrings);
  const [lines, setLines] = useState<string[] | null>(null);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  const load = (offset: number): void => {
    setLoading(true);
    api
      .readToolOutput({
        uuid,
        ref: outputRef,
        offset,
        limit: Math.min(PAGE_LINES, MAX_TOOL_OUTPUT_LINES),
      })
      .then(
        (w) => {
          setLines((prev) => [...(offset === 0 ? [] : (prev ?? [])), ...w.lines]);
          setMore(w.more);
          setError(null);
        },
        (err: unknown) => setError(err instanceof Error ? err.message : String(err)),
      )
      .finally(() => setLoading(false));
  };

  return (
    <div className="tv-trimmed">
      <div className="tv-trimmed-head">
        <span>{t('trimmed', { ref: outputRef })}</span>
        {lines === null && (
          <button type="button" className="tv-small" disabled={loading} onClick={() => load(0)}>
            {t('loadOutput')}
          </button>
        )}
      </div>
      {error && <p className="tv-error-line">{t('outputError', { message: error })}</p>}
      {lines !== null && (
        <>
          <pre className="tv-output">{lines.join('\n')}</pre>
          {more && (
            <button
              type="button"
              className="tv-small"
              disabled={loading}
              onClick={() => load(lines.length)}
            >
              {t('moreOutput')}
            </button>
          )}
        </>
      )}
    </div>
  );
}
