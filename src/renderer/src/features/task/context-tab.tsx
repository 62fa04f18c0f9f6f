import { useEffect, useState } from 'react';
import type { ContextBreakdown, ContextPart } from '../../../../shared/api/task-view-api';
import { useApi } from '../../api/api-context';
import { StatePanel } from '../../components/state-panel';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { taskStrings, type TaskStringKey } from './strings';

type State =
  | { kind: 'loading' }
  | { kind: 'ready'; breakdown: ContextBreakdown }
  | { kind: 'error'; message: string };

function partKey(p: ContextPart): string {
  return p.tool === undefined ? p.kind : `${p.kind}:${p.tool}`;
}

/**
 * What fills the context, now or right after a message: one bar of its parts and a list of
 * them, biggest messages of each a click away (each a link into the timeline).
 */
export function ContextTab(props: {
  uuid: string;
  at: number | undefined;
  revision: number;
  onAt(seq: number | undefined): void;
  onJump(seq: number): void;
}) {
  const { uuid, at, revision } = props;
  const api = useApi();
  const t = useT(taskStrings);
  const f = useFormat();
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [open, setOpen] = useState<string | null>(null);
  const [draft, setDraft] = useState(at === undefined ? '' : String(at));
  useEffect(() => setDraft(at === undefined ? '' : String(at)), [at]);
  useEffect(() => {
    let live = true;
    setState({ kind: 'loading' });
    api.contextBreakdown({ uuid, ...(at !== undefined && { at }), top: 8 }).then(
      (breakdown) => live && setState({ kind: 'ready', breakdown }),
      (err: unknown) =>
        live &&
        setState({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      live = false;
    };
  }, [api, uuid, at, revision]);

  const label = (p: ContextPart): string =>
    `${t(`ctx-${p.kind}` as TaskStringKey)}${p.tool === undefined ? '' : ` · ${p.tool}`}`;
  const submit = (): void => {
    const n = Number(draft.trim());
    props.onAt(draft.trim() === '' || !Number.isInteger(n) || n < 1 ? undefined : n);
  };

  return (
    <section className="ctx-tab" aria-label={t('tabContext')}>
      <form
        className="tv-toolbar ctx-toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <label className="tv-inline-form">
          <span className="tv-muted">{t('ctxAt')}</span>
          <input
            name="context-at"
            className="tv-jump"
            inputMode="numeric"
            placeholder="#"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
          />
        </label>
        <button type="submit">{t('ctxShow')}</button>
        <button type="button" disabled={at === undefined} onClick={() => props.onAt(undefined)}>
          {t('ctxNow')}
        </button>
        {state.kind === 'ready' && (
          <strong className="ctx-total" data-testid="context-total">
            {state.breakdown.at_seq === null
              ? t('ctxTotal', { tokens: f.tokens(state.breakdown.total_tokens) })
              : t('ctxTotalAt', {
                  tokens: f.tokens(state.breakdown.total_tokens),
                  seq: state.breakdown.at_seq,
                })}
          </strong>
        )}
      </form>
      {state.kind === 'loading' && <StatePanel tone="loading" title={t('ctxLoading')} />}
      {state.kind === 'error' && (
        <StatePanel tone="error" title={t('loadError')}>
          {state.message}
        </StatePanel>
      )}
      {state.kind === 'ready' && state.breakdown.total_tokens === 0 && (
        <StatePanel tone="empty" title={t('ctxEmpty')} />
      )}
      {state.kind === 'ready' && state.breakdown.total_tokens > 0 && (
        <Parts
          breakdown={state.breakdown}
          open={open}
          onToggle={(key) => setOpen(open === key ? null : key)}
          label={label}
          onJump={props.onJump}
        />
      )}
    </section>
  );
}

function Parts(props: {
  breakdown: ContextBreakdown;
  open: string | null;
  onToggle(key: string): void;
  label(p: ContextPart): string;
  onJump(seq: number): void;
}) {
  const { breakdown } = props;
  const t = useT(taskStrings);
  const f = useFormat();
  const total = breakdown.total_tokens;
  const unrecorded = breakdown.parts.find((p) => p.kind === 'unrecorded');
  return (
    <>
      <div className="ctx-bar" role="img" aria-label={t('ctxParts')}>
        {breakdown.parts.map((p) => (
          <span
            key={partKey(p)}
            className={`ctx-seg ctx-${p.kind}`}
            style={{ flexGrow: p.tokens }}
            title={`${props.label(p)}: ${f.tokens(p.tokens)}`}
          />
        ))}
      </div>
      <ul className="ctx-parts" aria-label={t('ctxParts')}>
        {breakdown.parts.map((p) => {
          const key = partKey(p);
          const expanded = props.open === key;
          return (
            <li key={key} className="ctx-part" data-part={key}>
              <button
                type="button"
                className="ctx-part-head"
                aria-expanded={expanded}
                disabled={p.biggest.length === 0}
                onClick={() => props.onToggle(key)}
              >
                <span className={`ctx-swatch ctx-${p.kind}`} aria-hidden="true" />
                <span className="ctx-name" title={props.label(p)}>
                  {props.label(p)}
                </span>
                <span className="ctx-tokens">{f.tokens(p.tokens)}</span>
                <span className="ctx-share">{f.percent(p.tokens / total)}</span>
                <span className="ctx-count tv-muted">
                  {p.messages > 0 ? t('ctxMessages', { count: p.messages }) : ''}
                </span>
              </button>
              {expanded && (
                <ol className="ctx-biggest" aria-label={t('ctxBiggest')}>
                  {p.biggest.map((b, i) => (
                    <li key={`${b.seq ?? 'x'}-${i}`}>
                      {b.seq === null ? (
                        <span className="tv-seq">—</span>
                      ) : (
                        <button
                          type="button"
                          className="tv-link tv-seq"
                          title={t('ctxOpen', { seq: b.seq })}
                          onClick={() => props.onJump(b.seq!)}
                        >
                          #{b.seq}
                        </button>
                      )}
                      <span className="ctx-tokens">{f.tokens(b.tokens)}</span>
                      <span className="ctx-preview" title={b.preview}>
                        {b.preview}
                      </span>
                    </li>
                  ))}
                </ol>
              )}
            </li>
          );
        })}
      </ul>
      {unrecorded && breakdown.reported && (
        <p className="tv-muted ctx-note">
          {t('ctxUnrecordedNote', {
            seq: breakdown.reported.seq,
            tokens: f.tokens(unrecorded.tokens),
          })}
        </p>
      )}
    </>
  );
}
