import { useEffect, useMemo } from 'react';
import { typingOrDialog } from '../../components/keys-overlay';
import type { CompactionDiff, DiffMessage } from '../../../../shared/api/compaction-api';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { navigate } from '../../router/use-route';
import { alignContexts } from './align-contexts';
import { ContextDiff } from './context-diff';
import { CompactionState } from './compaction-state';
import { LostFactsPanel } from './lost-facts-panel';
import { MessageCard } from './message-card';
import { NeededNextPanel } from './needed-next-panel';
import { StrategyCompare } from './strategy-compare';
import { compactionStrings } from './strings';
import { TokenBreakdownView } from './token-breakdown';
import { useCompactionDiff } from './use-compaction-diff';
import './compaction.css';

/**
 * The summary diff page (issue 6): for one compaction, what it replaced beside what took
 * its place, the facts that did not survive, and the whole context before → after.
 */
export function CompactionPage({ uuid, id }: { uuid: string; id: number }) {
  const t = useT(compactionStrings);
  const [state, reload] = useCompactionDiff(uuid, id);
  // Esc: back to the task's compactions, where this page was opened from.
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key !== 'Escape' || typingOrDialog(e)) return;
      e.preventDefault();
      navigate({ page: 'task', uuid, tab: 'compactions' });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [uuid]);
  return (
    <div className="cmp-root cmp-page">
      <nav className="cmp-nav">
        <button
          type="button"
          className="cmp-link-button"
          onClick={() => navigate({ page: 'task', uuid, tab: 'compactions' })}
        >
          {t('back')}
        </button>
      </nav>
      {state.kind === 'loading' && <CompactionState tone="loading" title={t('loading')} />}
      {state.kind === 'error' && (
        <CompactionState tone="error" title={t('loadFailed')} detail={state.message}>
          <button type="button" onClick={reload}>
            {t('retry')}
          </button>
        </CompactionState>
      )}
      {state.kind === 'ready' && <DiffBody uuid={uuid} diff={state.diff} />}
    </div>
  );
}

function DiffBody({ uuid, diff }: { uuid: string; diff: CompactionDiff }) {
  const t = useT(compactionStrings);
  const f = useFormat();
  const { record, before, after } = diff;
  const replaced = new Set(record.replaced_seqs ?? []);
  const changed = new Set(record.changed_seqs ?? []);
  const created = new Set(record.created_seqs ?? []);
  const isReplaced = (m: DiffMessage): boolean => m.seq !== null && replaced.has(m.seq);
  const isChanged = (m: DiffMessage): boolean => m.seq !== null && changed.has(m.seq);
  const left = before.messages.filter((m) => isReplaced(m) || isChanged(m));
  const right = after.messages.filter(
    (m) => (m.seq !== null && created.has(m.seq)) || isChanged(m),
  );
  const lost = diff.quality.facts.lost ?? [];
  const rows = useMemo(
    () => alignContexts(before.messages, after.messages),
    [before.messages, after.messages],
  );
  const saved = before.tokens - after.tokens;
  const percent = before.tokens > 0 ? Math.round((saved / before.tokens) * 100) : 0;
  const sum = (ms: DiffMessage[]): number => ms.reduce((n, m) => n + m.tokens, 0);
  return (
    <>
      <header className="cmp-hero">
        <div>
          <h1>
            {t('pageTitle', { id: String(record.id) })} · <code>{record.strategy}</code>
          </h1>
          <p className="cmp-facts-line">
            <span className={`cmp-badge ${record.undone ? 'cmp-badge-undone' : 'cmp-badge-on'}`}>
              {record.undone ? t('undone') : t('inEffect')}
            </span>
            <span title={record.created_at}>{f.dateTime(record.created_at)}</span>
            {record.start_seq > 0 && (
              <span>
                {t('seqRange', { from: String(record.start_seq), to: String(record.end_seq) })}
              </span>
            )}
            {diff.previousId !== null && (
              <span>{t('builtOn', { id: String(diff.previousId) })}</span>
            )}
            {record.start_seq > 0 && (
              <button
                type="button"
                className="cmp-link-button"
                onClick={() =>
                  navigate({ page: 'task', uuid, tab: 'timeline', seq: record.start_seq })
                }
              >
                {t('openInTimeline')}
              </button>
            )}
          </p>
        </div>
        <div className="cmp-hero-tokens">
          <strong>
            {t('contextTokens', {
              before: before.tokens,
              after: after.tokens,
            })}
          </strong>
          <span className={saved >= 0 ? 'cmp-good' : 'cmp-bad'}>
            {saved >= 0 ? t('saved', { saved: saved, percent }) : t('grew', { grown: -saved })}
          </span>
          <span className="cmp-note">{t('estimateNote')}</span>
        </div>
        <TokenBreakdownView diff={diff} />
      </header>

      <NeededNextPanel uuid={uuid} id={record.id} />

      <LostFactsPanel quality={diff.quality} />

      <StrategyCompare uuid={uuid} beforeRecord={diff.record.id} />

      <section className="cmp-split" aria-label={t('replacedTitle')}>
        <div className="cmp-column">
          <h2>{t('replacedTitle')}</h2>
          <p className="cmp-sub">
            {t('replacedSub', { count: replaced.size, tokens: sum(left.filter(isReplaced)) })}
            {changed.size > 0 && ` · ${t('changedSub', { count: changed.size })}`}
          </p>
          {left.length === 0 && <p className="cmp-empty">{t('nothingReplaced')}</p>}
          {left.map((m, i) => (
            <MessageCard
              key={`${m.seq ?? 'v'}-${i}`}
              message={m}
              facts={lost}
              tone={isChanged(m) ? 'changed' : 'removed'}
              tag={isChanged(m) ? t('changedTag') : t('removedTag')}
            />
          ))}
        </div>
        <div className="cmp-column">
          <h2>{t('tookPlaceTitle')}</h2>
          <p className="cmp-sub">
            {t('tookPlaceSub', { count: created.size, tokens: sum(right) })}
          </p>
          {right.length === 0 && <p className="cmp-empty">{t('nothingCreated')}</p>}
          {right.map((m, i) => (
            <MessageCard
              key={`${m.seq ?? 'v'}-${i}`}
              message={m}
              tone={isChanged(m) ? 'changed' : 'summary'}
              tag={isChanged(m) ? t('changedTag') : t('addedTag')}
            />
          ))}
        </div>
      </section>

      <ContextDiff rows={rows} before={before} after={after} facts={lost} />
    </>
  );
}
