import { useVirtualizer } from '@tanstack/react-virtual';
import {
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type PointerEvent,
  type RefObject,
} from 'react';
import type { CostUnknownReason } from '../../../../shared/cost-types';
import type { TaskSortColumn } from '../../../../shared/api/tasks-api';
import type { TaskPages } from '../../hooks/use-task-pages';
import { useT } from '../../i18n/use-t';
import { navigate } from '../../router/use-route';
import { useFormat } from '../../i18n/use-format';
import { useBrowserStore } from './browser-store';
import { browserStrings } from './strings';
import { gridLayout, TASK_COLUMNS, type TaskColumn } from './task-columns';
import { DEFAULT_HIDDEN, columnData, hiddenColumns, useColumnStore } from './column-store';
import { fitColumns } from './column-fit';

export const ROW_HEIGHT = 44;

interface Props {
  data: TaskPages;
  total: number;
  sort: TaskSortColumn;
  order: 'asc' | 'desc';
  onSort(column: TaskSortColumn): void;
  /** The task under the keyboard cursor (the export button acts on it). */
  onActive?(uuid: string | null): void;
  /** Set when a key asked for the list while it was loading: it takes the focus on showing. */
  focusOnShow?: RefObject<boolean>;
}

/**
 * The task table: a header and only the rows in view (react-virtual), the rest fetched
 * page by page as they scroll in. Keyboard: ↑/↓ (PageUp/PageDown, Home/End) move the
 * active row, Enter opens it.
 */
export function TaskGrid({ data, total, sort, order, onSort, onActive, focusOnShow }: Props) {
  const t = useT(browserStrings);
  const f = useFormat();
  const scroller = useRef<HTMLDivElement>(null);
  const chosen = useColumnStore((s) => s.hidden);
  const auto = useColumnStore((s) => s.auto);
  const widths = useColumnStore((s) => s.widths);
  const setSqueezed = useColumnStore((s) => s.setSqueezed);
  const room = useWidth(scroller);
  const hidden = hiddenColumns({ hidden: chosen, auto }, columnData(data));
  const { columns, squeezed } = fitColumns(
    TASK_COLUMNS.filter((c) => !hidden.includes(c.id)),
    widths,
    room,
    DEFAULT_HIDDEN.filter((id) => !hidden.includes(id)),
  );
  const { template, minWidth } = gridLayout(columns, widths);
  useEffect(() => setSqueezed(squeezed), [squeezed, setSqueezed]);
  // Keyboard first: the list takes the keys as soon as it shows, unless the user is
  // already typing somewhere (the search box keeps its focus while results arrive).
  useEffect(() => {
    const focused = document.activeElement;
    if (!focused || focused === document.body || focusOnShow?.current)
      scroller.current?.focus({ preventScroll: true });
    if (focusOnShow) focusOnShow.current = false;
  }, [focusOnShow]);
  const active = useBrowserStore((s) => s.active);
  const setActive = useBrowserStore((s) => s.setActive);
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  const { ensureRange } = data;
  useEffect(() => {
    if (total > 0) ensureRange(first, last);
  }, [first, last, total, ensureRange]);
  useEffect(() => {
    if (active >= total) setActive(Math.max(0, total - 1));
  }, [active, total, setActive]);
  // Back from a task: the row that was open is in view again.
  useEffect(() => {
    if (useBrowserStore.getState().active > 0)
      virtualizer.scrollToIndex(useBrowserStore.getState().active, { align: 'center' });
  }, [virtualizer]);

  const move = (to: number): void => {
    const next = Math.max(0, Math.min(total - 1, to));
    setActive(next);
    virtualizer.scrollToIndex(next, { align: 'auto' });
  };
  const open = (index: number): void => {
    const row = data.rowAt(index);
    if (row) navigate({ page: 'task', uuid: row.uuid, tab: 'timeline' });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    const pageRows = Math.max(
      1,
      Math.floor((scroller.current?.clientHeight ?? 400) / ROW_HEIGHT) - 1,
    );
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(active + 1),
      ArrowUp: () => move(active - 1),
      j: () => move(active + 1),
      k: () => move(active - 1),
      PageDown: () => move(active + pageRows),
      PageUp: () => move(active - pageRows),
      Home: () => move(0),
      End: () => move(total - 1),
      Enter: () => open(active),
    };
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const action = keys[e.key];
    if (!action) return;
    e.preventDefault();
    action();
  };
  const now = Date.now();
  const ctx = {
    now,
    f,
    untitled: t('untitled'),
    own: t('ownAgent'),
    unknownCost: (reason: CostUnknownReason) => t(`costUnknown_${reason}`),
  };
  const sortLabel = t(TASK_COLUMNS.find((c) => c.sort === sort)?.label ?? 'colCreated');
  const activeRow = data.rowAt(active);
  const activeUuid = activeRow?.uuid ?? null;
  useEffect(() => onActive?.(activeUuid), [activeUuid, onActive]);

  return (
    <div
      ref={scroller}
      className="task-grid"
      role="grid"
      aria-rowcount={total + 1}
      aria-label={t('tableLabel', { column: sortLabel })}
      aria-activedescendant={activeRow ? `task-row-${activeRow.uuid}` : undefined}
      tabIndex={0}
      onKeyDown={onKeyDown}
    >
      <div
        className="task-grid-head"
        role="row"
        style={{ gridTemplateColumns: template, minWidth }}
      >
        {columns.map((c) => {
          const sorted = c.sort !== undefined && c.sort === sort;
          const by = c.sort;
          return (
            <div
              key={c.id}
              role="columnheader"
              aria-sort={sorted ? (order === 'asc' ? 'ascending' : 'descending') : 'none'}
              className={c.numeric ? 'num' : undefined}
            >
              <button
                type="button"
                className={`sort-button${sorted ? ' sorted' : ''}`}
                data-column={c.id}
                // A column without a sort key (no index for it) is filtered instead.
                disabled={by === undefined}
                onClick={() => by && onSort(by)}
                title={sorted ? t(order === 'asc' ? 'sortAsc' : 'sortDesc') : undefined}
              >
                {t(c.label)}
                <span className="sort-arrow" aria-hidden="true">
                  {sorted ? (order === 'asc' ? '▲' : '▼') : ''}
                </span>
              </button>
              <ColumnResizer column={c} label={t('resizeColumn', { column: t(c.label) })} />
            </div>
          );
        })}
      </div>
      <div className="task-grid-body" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((item) => {
          const row = data.rowAt(item.index);
          const isActive = item.index === active;
          return (
            <div
              key={item.key}
              id={row ? `task-row-${row.uuid}` : undefined}
              role="row"
              aria-rowindex={item.index + 2}
              aria-selected={isActive}
              data-index={item.index}
              data-uuid={row?.uuid}
              className={`task-row${isActive ? ' active' : ''}${row ? '' : ' placeholder'}`}
              style={{
                gridTemplateColumns: template,
                minWidth,
                transform: `translateY(${item.start}px)`,
                height: ROW_HEIGHT,
              }}
              onClick={() => {
                setActive(item.index);
                open(item.index);
              }}
            >
              {columns.map((c) => (
                <div
                  key={c.id}
                  role="gridcell"
                  className={`cell-${c.id}${c.numeric ? ' num' : ''}`}
                >
                  {row ? c.cell(row, ctx) : <span className="skeleton" />}
                </div>
              ))}
            </div>
          );
        })}
      </div>
    </div>
  );
}

/** The element's inner width, followed as the window is resized; null before layout. */
function useWidth(ref: RefObject<HTMLElement | null>): number | null {
  const [width, setWidth] = useState<number | null>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setWidth(el.clientWidth);
    const observer = new ResizeObserver(() => setWidth(el.clientWidth));
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}

/** A drag handle on a header's right edge; the width is remembered (column-store). */
function ColumnResizer({ column, label }: { column: TaskColumn; label: string }) {
  const setWidth = useColumnStore((s) => s.setWidth);
  const onPointerDown = (e: PointerEvent<HTMLSpanElement>): void => {
    e.preventDefault();
    e.stopPropagation();
    const cell = e.currentTarget.parentElement;
    if (!cell) return;
    const startX = e.clientX;
    const startWidth = cell.getBoundingClientRect().width;
    const onMove = (m: globalThis.PointerEvent): void =>
      setWidth(column.id, startWidth + m.clientX - startX);
    const onUp = (): void => {
      window.removeEventListener('pointermove', onMove);
      window.removeEventListener('pointerup', onUp);
    };
    window.addEventListener('pointermove', onMove);
    window.addEventListener('pointerup', onUp);
  };
  return (
    <span
      className="column-resizer"
      data-column={column.id}
      title={label}
      aria-hidden="true"
      onPointerDown={onPointerDown}
    />
  );
}
