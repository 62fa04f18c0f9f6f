import { lazy, Suspense, useMemo } from 'react';
import type { ToolCall } from '../../../../shared/task-types';
import { useT } from '../../i18n/use-t';
import { editCallOf, parseArgs } from './edit-call';
import { firstMark } from './mark-parts';
import { MarkedText } from './marked-text';
import { taskStrings } from './strings';

// jsdiff is loaded with the compaction page already; a timeline without edits never needs it.
const EditDiff = lazy(() => import('./edit-diff').then((m) => ({ default: m.EditDiff })));

/** Arguments longer than this many lines start folded. */
const FOLD_LINES = 6;

/**
 * One tool call: its name, its arguments pretty-printed (folded when long), edits as a
 * diff, and a link to its result.
 */
export function ToolCallView({
  call,
  resultSeq,
  onJump,
  mark,
}: {
  call: ToolCall;
  resultSeq: number | undefined;
  onJump(seq: number): void;
  /** Text a search matched: its arguments open to show it. */
  mark?: string;
}) {
  const t = useT(taskStrings);
  const { pretty, edit, oneLine } = useMemo(() => {
    const args = parseArgs(call.function.arguments);
    const pretty = typeof args === 'string' ? args : JSON.stringify(args, null, 2);
    return {
      pretty,
      edit: editCallOf(call.function.name, args),
      oneLine: typeof args === 'string' ? args : JSON.stringify(args),
    };
  }, [call.function.arguments, call.function.name]);
  const lines = pretty.split('\n').length;
  const marked = firstMark(pretty, mark) >= 0;
  return (
    <div className="tv-call" data-call-id={call.id}>
      <div className="tv-call-head">
        <span className="tv-call-name">{t('toolCall', { name: call.function.name })}</span>
        {resultSeq !== undefined && (
          <button
            type="button"
            className="tv-link tv-result-link"
            onClick={() => onJump(resultSeq)}
          >
            {t('resultAt', { seq: String(resultSeq) })}
          </button>
        )}
      </div>
      {edit && (
        <Suspense fallback={null}>
          <EditDiff edit={edit} />
        </Suspense>
      )}
      {pretty !== '' && pretty !== '{}' && (
        <details className="tv-call-args-block" open={marked || (!edit && lines <= FOLD_LINES)}>
          <summary>
            <code className="tv-call-args" title={t('argsToggle')}>
              {edit || lines > FOLD_LINES
                ? t('argsFolded', { lines, bytes: byteLength(pretty) })
                : oneLine}
            </code>
          </summary>
          <pre className="tv-args-pretty">
            <MarkedText text={pretty} mark={marked ? mark : undefined} />
          </pre>
        </details>
      )}
    </div>
  );
}

export function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}
