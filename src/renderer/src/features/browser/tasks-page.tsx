import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { TaskSortColumn } from '../../../../shared/api/tasks-api';
import { StatePanel } from '../../components/state-panel';
import { useDebounced } from '../../hooks/use-debounced';
import { useTaskPages } from '../../hooks/use-task-pages';
import { toQuery } from './task-query';
import { useT } from '../../i18n/use-t';
import { browserStrings } from './strings';
import { useBrowserStore } from './browser-store';
import { NO_FILTERS } from './filter-values';
import { TaskFilters } from './task-filters';
import { TaskGrid } from './task-grid';
import { LazyExportDialog } from '../transfer/lazy-export-dialog';
import { typingOrDialog } from '../../components/keys-overlay';
import { formatUsd } from '../../../../shared/format-cost';
import { ColumnsMenu } from './columns-menu';
import { focusDateRange } from './date-range-filter';
import { columnData } from './column-store';
import { SearchScopeControl } from '../search/search-scope';
import { useSearchStore } from '../search/search-store';

// Searching messages brings the API's schemas (zod): loaded when first chosen.
const MessagesPanel = lazy(() =>
  import('../search/message-search').then((m) => ({ default: m.MessagesPanel })),
);

/** Text columns read best A→Z first; dates and counts newest/largest first. */
const ASCENDING_FIRST: ReadonlySet<TaskSortColumn> = new Set([
  'title',
  'repo',
  'repository',
  'task_type',
  'user',
  'model',
  'agent',
  'host',
  'status',
]);

/** The task browser: filters on top, the virtualized table below (issue 6). */
export function TasksPage() {
  const t = useT(browserStrings);
  const { filters, setFilters, sort, setSort } = useBrowserStore();
  const search = useDebounced(filters.search, 250);
  const query = useMemo(
    () => toQuery({ ...filters, search }, sort.column, sort.order),
    [filters, search, sort],
  );
  const data = useTaskPages(query);
  const searchRef = useRef<HTMLInputElement>(null);
  const [activeUuid, setActiveUuid] = useState<string | null>(null);
  const [exporting, setExporting] = useState(false);
  const focusGridOnShow = useRef(false);
  const scope = useSearchStore((s) => s.scope);
  const scopeRef = useRef(scope);
  scopeRef.current = scope;

  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.ctrlKey || e.metaKey || e.altKey || typingOrDialog(e)) return;
      // Searching messages, the hits have their own keys (search-results.tsx): only / here.
      if (scopeRef.current === 'messages') {
        if (e.key !== '/') return;
        e.preventDefault();
        searchRef.current?.focus();
        searchRef.current?.select();
        return;
      }
      const grid = document.querySelector<HTMLElement>('.task-grid');
      const target = e.target instanceof HTMLElement ? e.target : null;
      // ↓ from a filter control goes on to the results (as from the search box), the
      // cursor where it was; while the new results load, as soon as they show.
      if (e.key === 'ArrowDown' && target?.closest('.task-filters')) {
        e.preventDefault();
        if (grid) grid.focus();
        else focusGridOnShow.current = true;
        return;
      }
      // Arrow keys before the list had focus (after a click elsewhere): hand it the keys.
      // Enter on a button or link is that control's own.
      const ownEnter = e.key === 'Enter' && target?.closest('button, a, summary');
      if (grid && !ownEnter && ['ArrowDown', 'ArrowUp', 'j', 'k', 'Enter'].includes(e.key)) {
        if (document.activeElement !== grid && !grid.contains(document.activeElement)) {
          e.preventDefault();
          grid.focus();
          if (e.key !== 'Enter')
            grid.dispatchEvent(new KeyboardEvent('keydown', { key: e.key, bubbles: true }));
        }
        return;
      }
      if (e.key === 'd') {
        // The Created filter's quick ranges: one key, listed in the ? overlay.
        if (focusDateRange()) e.preventDefault();
        return;
      }
      if (e.key === '$') {
        // The most expensive tasks first: one key, listed in the ? overlay.
        e.preventDefault();
        setSort({ column: 'cost', order: 'desc' });
        return;
      }
      if (e.key !== '/') return;
      e.preventDefault();
      searchRef.current?.focus();
      searchRef.current?.select();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [setSort]);

  const onSort = useCallback(
    (column: TaskSortColumn) => {
      const prev = useBrowserStore.getState().sort;
      setSort(
        prev.column === column
          ? { column, order: prev.order === 'asc' ? 'desc' : 'asc' }
          : { column, order: ASCENDING_FIRST.has(column) ? 'asc' : 'desc' },
      );
    },
    [setSort],
  );

  const { state } = data;
  if (scope === 'messages')
    return (
      <Suspense fallback={<StatePanel tone="loading" title={t('loading')} />}>
        <MessagesPanel ref={searchRef} facets={state.kind === 'error' ? null : state.facets} />
      </Suspense>
    );
  const filtered = JSON.stringify(filters) !== JSON.stringify(NO_FILTERS);
  return (
    <section className="panel tasks-panel" aria-labelledby="tasks-heading">
      <div className="panel-head">
        <h2 id="tasks-heading">{t('heading')}</h2>
        {state.kind === 'ready' && (
          <span className="panel-count" data-testid="task-count">
            {t('count', { count: state.total })}
            {state.facets && state.facets.status.running > 0 && (
              <> · {t('running', { count: state.facets.status.running })}</>
            )}
          </span>
        )}
        {state.kind === 'ready' && state.facets?.cost && (
          <span
            className="panel-count cost-total"
            data-testid="cost-total"
            title={t('costTotalHint', { tasks: state.facets.cost.tasks })}
          >
            {t('costTotal', { usd: formatUsd(state.facets.cost.usd) })}
            {state.facets.cost.unknown > 0 && (
              <> {t('costTotalUnknown', { count: state.facets.cost.unknown })}</>
            )}
          </span>
        )}
        <span className="key-hint">
          {/* The whole list where it fits; where it does not, the key that shows it. */}
          <span className="key-hint-long">{t('keys')}</span>
          <span className="key-hint-short">{t('keysHelp')}</span>
        </span>
        <ColumnsMenu data={columnData(data)} />
        <button
          type="button"
          name="export"
          disabled={!activeUuid}
          title={t('exportHint')}
          onClick={() => setExporting(true)}
        >
          {t('export')}
        </button>
        {exporting && activeUuid && (
          <LazyExportDialog uuids={[activeUuid]} onClose={() => setExporting(false)} />
        )}
      </div>
      <TaskFilters
        ref={searchRef}
        values={filters}
        facets={state.kind === 'error' ? null : state.facets}
        facetsCurrent={state.kind === 'ready' && state.facetsCurrent}
        onChange={setFilters}
        lead={<SearchScopeControl text={filters.search} />}
      />
      {state.kind === 'loading' && <StatePanel tone="loading" title={t('loading')} />}
      {state.kind === 'error' && (
        <StatePanel tone="error" title={t('loadError')}>
          <p className="state-detail">{state.message}</p>
          <button type="button" onClick={data.reload}>
            {t('retry')}
          </button>
        </StatePanel>
      )}
      {state.kind === 'ready' && state.total === 0 && (
        <StatePanel tone="empty" title={filtered ? t('noMatchTitle') : t('emptyTitle')}>
          <p>{filtered ? t('noMatchBody') : t('emptyBody')}</p>
        </StatePanel>
      )}
      {state.kind === 'ready' && state.total > 0 && (
        <TaskGrid
          data={data}
          total={state.total}
          sort={sort.column}
          order={sort.order}
          onSort={onSort}
          onActive={setActiveUuid}
          focusOnShow={focusGridOnShow}
        />
      )}
    </section>
  );
}
