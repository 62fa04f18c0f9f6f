import { forwardRef, useEffect, useRef, type ForwardedRef } from 'react';
import { MAX_SESSION_SEARCH_HITS, type SessionSearchHit } from '../../../../shared/api/search-api';
import type { TaskFacets } from '../../../../shared/api/tasks-api';
import { StatePanel } from '../../components/state-panel';
import { useT } from '../../i18n/use-t';
import { navigate } from '../../router/use-route';
import { MessageSearchBar } from './message-search-bar';
import { toSearchInput } from './search-input';
import { hitKey, hitRoute, SearchResults } from './search-results';
import { FIRST_LIMIT, useSearchStore } from './search-store';
import { browserStrings } from '../browser/strings';
import { searchStrings } from './strings';
import { useSessionSearch } from './use-session-search';
import './search.css';

/**
 * The task list searching messages (issue 33): the field and filters, then the hits grouped
 * by task. ↓ from the field goes to the hits, ↑ ↓ move among them, Enter opens the task's
 * timeline at the hit with the match marked.
 */
export const MessageSearch = forwardRef<HTMLInputElement, { facets: TaskFacets | null }>(
  function MessageSearch({ facets }, queryRef) {
    const t = useT(searchStrings);
    const { values, limit, active, setValues, setLimit, setActive } = useSearchStore();
    const { state, retry, flush } = useSessionSearch(toSearchInput(values, limit));
    const list = useRef<HTMLDivElement>(null);
    const field = (): HTMLInputElement | null =>
      (queryRef as { current: HTMLInputElement | null } | null)?.current ?? null;

    const focusHit = (which: 'first' | 'active'): boolean => {
      const hits = list.current?.querySelectorAll<HTMLAnchorElement>('a.msg-hit');
      if (!hits?.length) return false;
      const target =
        (which === 'active' &&
          list.current!.querySelector<HTMLAnchorElement>('a.msg-hit[data-active]')) ||
        hits[0]!;
      target.focus();
      target.scrollIntoView({ block: 'nearest' });
      return true;
    };
    // Chosen from the scope control (which is gone with the table's filters): the field is
    // where the reader goes next.
    useEffect(() => {
      if (!document.activeElement || document.activeElement === document.body) field()?.focus();
    }, []);
    // Back from a task the hits opened: the cursor is on the hit it left from.
    useEffect(() => {
      if (active && state.kind === 'ready') focusHit('active');
      // Only when the results first show: later renders leave the focus where the reader put it.
    }, [state.kind === 'ready']);

    const open = (hit: SessionSearchHit): void => {
      setActive(hitKey(hit));
      navigate(hitRoute(hit));
    };
    return (
      <>
        <MessageSearchBar
          ref={queryRef}
          values={values}
          agents={facets?.agents ?? []}
          repos={facets?.repos ?? []}
          onChange={setValues}
          onEnter={() => {
            if (state.kind !== 'ready' || state.busy || !focusHit('first')) flush();
          }}
          onDown={() => focusHit('first')}
        />
        <Body
          state={state}
          retry={retry}
          listRef={list}
          active={active}
          canShowMore={limit < MAX_SESSION_SEARCH_HITS}
          onOpen={open}
          onActive={setActive}
          onShowMore={() => setLimit(Math.min(MAX_SESSION_SEARCH_HITS, limit + FIRST_LIMIT * 2))}
          onTop={() => field()?.focus()}
          idle={t('idleTitle')}
        />
      </>
    );
  },
);

function Body(props: {
  state: ReturnType<typeof useSessionSearch>['state'];
  retry(): void;
  listRef: ForwardedRef<HTMLDivElement>;
  active: string | null;
  canShowMore: boolean;
  onOpen(hit: SessionSearchHit): void;
  onActive(key: string): void;
  onShowMore(): void;
  onTop(): void;
  idle: string;
}) {
  const t = useT(searchStrings);
  const { state } = props;
  switch (state.kind) {
    case 'idle':
      return (
        <StatePanel tone="empty" title={props.idle}>
          <p>{t('idleBody')}</p>
        </StatePanel>
      );
    case 'loading':
      return <StatePanel tone="loading" title={t('searching')} />;
    case 'error':
      return (
        <StatePanel tone="error" title={t('errorTitle')}>
          <p className="state-detail">{state.message}</p>
          <button type="button" onClick={props.retry}>
            {t('retry')}
          </button>
        </StatePanel>
      );
    case 'ready':
      if (state.result.hits.length === 0 && !state.busy)
        return (
          <StatePanel tone="empty" title={t('noneTitle')}>
            <p>{t('noneBody')}</p>
            {state.result.pending > 0 && (
              <p className="msg-pending">{t('pending', { count: state.result.pending })}</p>
            )}
          </StatePanel>
        );
      return (
        <SearchResults
          ref={props.listRef}
          result={state.result}
          busy={state.busy}
          active={props.active}
          canShowMore={props.canShowMore}
          onOpen={props.onOpen}
          onActive={props.onActive}
          onShowMore={props.onShowMore}
          onTop={props.onTop}
        />
      );
  }
}

/** The task list searching messages: the hits take the table's place. */
export const MessagesPanel = forwardRef<HTMLInputElement, { facets: TaskFacets | null }>(
  function MessagesPanel({ facets }, queryRef) {
    const t = useT(browserStrings);
    const ts = useT(searchStrings);
    return (
      <section className="panel tasks-panel" aria-labelledby="tasks-heading">
        <div className="panel-head">
          <h2 id="tasks-heading">{t('heading')}</h2>
          <span className="key-hint">
            <span className="key-hint-long">{ts('keys')}</span>
            <span className="key-hint-short">{ts('keysHelp')}</span>
          </span>
        </div>
        <MessageSearch ref={queryRef} facets={facets} />
      </section>
    );
  },
);
