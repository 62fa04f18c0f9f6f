import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { CompactionRecordInfo } from '../../../../shared/api/compaction-api';
import { StatePanel } from '../../components/state-panel';
import { useT } from '../../i18n/use-t';
import { READER_INPUTS, readerMovedUp } from './follow-end';
import { holdAtTop } from './hold-at-top';
import { MessageRow } from './message-row';
import { taskStrings } from './strings';
import { useMessageWindows, WINDOW_SIZE } from './use-message-windows';

const ESTIMATED_ROW_PX = 110;
/** How close to the bottom counts as "at the end" for following new messages. */
const FOLLOW_SLACK_PX = 48;

export interface TimelineProps {
  uuid: string;
  view: 'history' | 'current';
  /** Scroll to and highlight this seq (history) or line (current). */
  target: number | undefined;
  /** Text to mark in the target's message (a message search's match). */
  mark?: string;
  /** Changes with every jump asked for, so that a jump to the same target scrolls again. */
  jumps: number;
  revision: number;
  compactions: CompactionRecordInfo[];
  onJump(seq: number): void;
}

/** The messages, virtualized and fetched window by window as they scroll into view. */
export function Timeline({
  uuid,
  view,
  target,
  mark,
  jumps,
  revision,
  compactions,
  onJump,
}: TimelineProps) {
  const t = useT(taskStrings);
  const data = useMessageWindows(uuid, view, revision, target);
  const scroller = useRef<HTMLDivElement>(null);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const byId = useMemo(() => new Map(compactions.map((c) => [c.id, c])), [compactions]);
  const count = data.total ?? 0;
  // The page scrolls as one (header, chart, tabs and messages): the list is virtualized
  // against the window, offset by where it starts on the page.
  const [margin, setMargin] = useState(0);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const top = Math.round(el.getBoundingClientRect().top + window.scrollY);
    if (top !== margin) setMargin(top);
  });
  const virtualizer = useWindowVirtualizer({
    count,
    estimateSize: () => ESTIMATED_ROW_PX,
    overscan: 6,
    scrollMargin: margin,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items.at(-1)?.index ?? 0;

  // Follow a growing task while the reader sits at its end, as a terminal does. Reaching the
  // end turns following on; only the reader moving up turns it off (their own wheel, keys,
  // pointer or touch: follow-end.ts). Growth and layout moving the page never do.
  const wasAtEnd = useRef(true);
  const shownCount = useRef(0);
  /** Whether a jump's target is held at the top: following the end would fight it. */
  const holding = useRef(false);
  const scrollToEnd = (): void => {
    const el = scroller.current;
    if (!el || holding.current) return;
    const gap = el.getBoundingClientRect().bottom - window.innerHeight;
    if (gap > 0) window.scrollTo(0, window.scrollY + gap + 4);
  };
  const virtual = useRef(virtualizer);
  virtual.current = virtualizer;
  useEffect(() => {
    // The laid-out list lags the virtualizer by a render: when rows above the fold are
    // measured shorter, the virtualizer moves the page up by the difference before the list
    // has shrunk, which the DOM alone would read as the reader leaving the end. Either
    // view being at the end counts.
    const atEnd = (el: HTMLDivElement): boolean => {
      const v = virtual.current;
      const virtualGap =
        v.options.scrollMargin + v.getTotalSize() - (window.scrollY + window.innerHeight);
      const laidOutGap = el.getBoundingClientRect().bottom - window.innerHeight;
      return Math.min(virtualGap, laidOutGap) < FOLLOW_SLACK_PX;
    };
    if (scroller.current) wasAtEnd.current = atEnd(scroller.current);
    let lastY = window.scrollY;
    let inputAt = -Infinity;
    const onInput = (): void => {
      inputAt = performance.now();
    };
    // A scroll event arrives a frame after the scroll: rows may have grown in between, so
    // our own scroll to the end can look short of it. Only the reader moving up leaves the
    // end; the page moving up by itself does not (follow-end.ts).
    const onScroll = (): void => {
      const el = scroller.current;
      const y = window.scrollY;
      if (el && atEnd(el)) wasAtEnd.current = true;
      else if (readerMovedUp(lastY, y, inputAt, performance.now())) wasAtEnd.current = false;
      lastY = y;
    };
    for (const type of READER_INPUTS) {
      window.addEventListener(type, onInput, { passive: true, capture: true });
    }
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      window.removeEventListener('scroll', onScroll);
      for (const type of READER_INPUTS)
        window.removeEventListener(type, onInput, { capture: true });
    };
  }, [count > 0]);
  useEffect(() => {
    if (shownCount.current > 0 && count > shownCount.current && wasAtEnd.current) scrollToEnd();
    shownCount.current = count;
  }, [count]);
  // Rows measured after they came in make the list taller: stay at its end.
  const inner = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = inner.current;
    if (!el) return;
    const observer = new ResizeObserver(() => {
      if (wasAtEnd.current && shownCount.current > 0) scrollToEnd();
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [count > 0]);

  const { ensure } = data;
  // After every render: a live refresh or an eviction can empty a visible window, and ensure
  // only fetches what is missing and not already on its way.
  useEffect(() => {
    if (count > 0) ensure(first, last);
  });

  // Jump: bring the target to the top once the total is known, and keep it there while the
  // page settles (header, chart and rows come in after it) until the reader moves. A task
  // growing later does not start it again: that would pull a reader who moved back.
  useEffect(() => {
    const el = scroller.current;
    if (target === undefined || count === 0 || !el) return;
    const position = Math.min(count, target) - 1;
    holding.current = true;
    return holdAtTop({
      find: () => {
        const row = el.querySelector<HTMLElement>(`:scope > div > [data-index="${position}"]`);
        return row && markBelowFold(row);
      },
      bringNear: () => virtual.current.scrollToIndex(position, { align: 'start' }),
      // The task's page (header, chart, tabs, list): what grows above and around the target.
      watch: el.closest('.task-view') ?? el,
      onRelease: () => (holding.current = false),
    });
  }, [target, count > 0, view, jumps, mark]);

  if (data.error)
    return (
      <StatePanel tone="error" title={t('loadError')}>
        {data.error}
      </StatePanel>
    );
  if (data.total === null) return <StatePanel tone="loading" title={t('loading')} />;
  if (count === 0)
    return (
      <StatePanel
        tone="empty"
        title={view === 'current' ? t('emptyCurrent') : t('emptyTimeline')}
      />
    );

  const toggle = (key: string): void =>
    setExpanded((prev) => {
      const next = new Set(prev);
      if (!next.delete(key)) next.add(key);
      return next;
    });

  return (
    <div ref={scroller} className="tv-timeline" data-total={count}>
      <div ref={inner} style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {items.map((item) => {
          const message = data.at(item.index);
          const key = `${view}:${item.index}`;
          const position = item.index + 1;
          return (
            <div
              key={item.key}
              ref={virtualizer.measureElement}
              data-index={item.index}
              className={position === target ? 'tv-slot tv-target' : 'tv-slot'}
              style={{
                position: 'absolute',
                top: 0,
                left: 0,
                right: 0,
                transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)`,
              }}
            >
              {message ? (
                <MessageRow
                  uuid={uuid}
                  message={message}
                  compaction={
                    'compaction_id' in message && message.compaction_id !== undefined
                      ? byId.get(message.compaction_id)
                      : undefined
                  }
                  call={data.call(message.tool_call_id)}
                  resultOf={data.result}
                  expanded={expanded.has(key)}
                  onToggle={() => toggle(key)}
                  onJump={onJump}
                  mark={position === target ? mark : undefined}
                />
              ) : (
                <div className="tv-row tv-row-loading">
                  {t('loadingRow', {
                    from: Math.floor(item.index / WINDOW_SIZE) * WINDOW_SIZE + 1,
                    to: Math.min(count, (Math.floor(item.index / WINDOW_SIZE) + 1) * WINDOW_SIZE),
                  })}
                </div>
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
}

/**
 * What a jump holds at the top: the row, or the first match marked in it when the row is
 * so long that the match would sit below the window's fold with the row's head at the top
 * (a search hit deep in a long tool output).
 */
function markBelowFold(row: HTMLElement): HTMLElement {
  const match = row.querySelector<HTMLElement>('mark.tv-match');
  if (!match) return row;
  const below = match.getBoundingClientRect().top - row.getBoundingClientRect().top;
  return below > window.innerHeight * 0.6 ? match : row;
}
