import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import type { CurrentLine, MessagesPage } from '../../../../shared/api/messages-api';
import type { MessageRecord } from '../../../../shared/task-types';
import type { WorkbenchApi } from '../../../../shared/api/workbench-api';
import { useApi } from '../../api/api-context';
import { retryWhileNotFound } from './not-found-retry';

/** A timeline row: a history message (by seq) or a line of current.jsonl (by index). */
export type TimelineMessage = MessageRecord | CurrentLine;

export const WINDOW_SIZE = 200;

/** The window holding a 1-based position the view opens at (the first one when none). */
export function windowOf(opensAt: number | undefined): number {
  return opensAt !== undefined && opensAt > 0 ? Math.floor((opensAt - 1) / WINDOW_SIZE) : 0;
}

/** The input of the call for one window (also started early: first-view-calls.ts). */
export function windowInput(
  uuid: string,
  view: 'history' | 'current',
  windowIndex: number,
): Parameters<WorkbenchApi['readMessages']>[0] {
  return { uuid, view, from: windowIndex * WINDOW_SIZE + 1, limit: WINDOW_SIZE };
}
/** Windows kept at once: ~2,400 messages, whatever the task's length. */
const MAX_WINDOWS = 12;
const MAX_KNOWN_CALLS = 5000;

/**
 * The loaded windows a live change may have altered: after a compaction, every window of
 * current.jsonl; in the history, which only grows at its end, the newest window and any
 * loaded one that was not full (the task grew past it since it was read).
 */
export function changedWindows(
  loaded: ReadonlyMap<number, readonly unknown[]>,
  view: 'history' | 'current',
  total: number,
): number[] {
  if (view === 'current') return [...loaded.keys()];
  const newest = Math.floor(Math.max(0, total - 1) / WINDOW_SIZE);
  const short = [...loaded].filter(([, messages]) => messages.length < WINDOW_SIZE);
  return [...new Set([newest, ...short.map(([w]) => w)])];
}

export interface KnownCall {
  name: string;
  seq: number;
}

export interface MessageWindows {
  total: number | null;
  error: string | null;
  /** The message at a 0-based position, when its window is loaded. */
  at(position: number): TimelineMessage | undefined;
  /** Loads the windows covering [first, last] (0-based positions). */
  ensure(first: number, last: number): void;
  /** The call a tool result answers, when the call's window has been seen. */
  call(id: string | undefined): KnownCall | undefined;
  /** The seq of the result answering a call, when the result's window has been seen. */
  result(id: string): number | undefined;
}

/**
 * The timeline's data: fetched window by window (readMessages from/limit) as positions come
 * into view, with a bounded cache so a 200,000-message task costs what a 2,000-message one
 * does. `revision` (a live event) re-reads the total and the newest window. `opensAt` (a
 * 1-based position the view opens at) makes the first request the window holding it, so a
 * deep link shows its message after one round trip, not two.
 */
export function useMessageWindows(
  uuid: string,
  view: 'history' | 'current',
  revision: number,
  opensAt?: number,
): MessageWindows {
  const api = useApi();
  const [total, setTotal] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [, bump] = useReducer((x: number) => x + 1, 0);
  const cache = useRef(new Map<number, TimelineMessage[]>());
  const pending = useRef(new Set<number>());
  /**
   * Windows a live change may have altered, with the number of that change: still shown (no
   * flicker) until a read started after it answers. A read already on its way is older.
   */
  const stale = useRef(new Map<number, number>());
  const changes = useRef(0);
  const calls = useRef(new Map<string, KnownCall>());
  const results = useRef(new Map<string, number>());
  const generation = useRef(0);
  /** Whether any window of this task and view came back (not_found is retried until then). */
  const received = useRef(false);
  const firstWindow = useRef(0);
  firstWindow.current = windowOf(opensAt);

  const store = useCallback((windowIndex: number, messages: TimelineMessage[]) => {
    const windows = cache.current;
    windows.delete(windowIndex);
    windows.set(windowIndex, messages);
    // Map order is insertion order: the first entries are the least recently loaded.
    while (windows.size > MAX_WINDOWS) windows.delete(windows.keys().next().value as number);
    for (const m of messages) {
      if (!('seq' in m)) continue;
      for (const c of m.tool_calls ?? [])
        calls.current.set(c.id, { name: c.function.name, seq: m.seq });
      if (m.role === 'tool' && m.tool_call_id) results.current.set(m.tool_call_id, m.seq);
    }
    for (const known of [calls.current, results.current]) {
      while (known.size > MAX_KNOWN_CALLS) known.delete(known.keys().next().value as string);
    }
  }, []);

  const fetchWindow = useCallback(
    (windowIndex: number) => {
      if (pending.current.has(windowIndex)) return;
      pending.current.add(windowIndex);
      const gen = generation.current;
      const startedAfter = changes.current;
      const read = (): Promise<MessagesPage> =>
        api.readMessages(windowInput(uuid, view, windowIndex));
      // A task opened as it is being started or imported: as the header does.
      retryWhileNotFound(read, {
        shownBefore: () => received.current,
        cancelled: () => gen !== generation.current,
      })
        .then(
          (page) => {
            if (gen !== generation.current) return;
            if ((stale.current.get(windowIndex) ?? Infinity) <= startedAfter)
              stale.current.delete(windowIndex);
            // A window past the end (a deep link beyond the last message) is not kept: the
            // task may still grow into it.
            if (windowIndex * WINDOW_SIZE < page.total) store(windowIndex, page.messages);
            else cache.current.delete(windowIndex);
            received.current = true;
            setTotal(page.total);
            bump();
          },
          (err: unknown) => {
            if (gen === generation.current)
              setError(err instanceof Error ? err.message : String(err));
          },
        )
        .finally(() => pending.current.delete(windowIndex));
    },
    [api, uuid, view, store],
  );

  // A new task or view starts from nothing.
  useEffect(() => {
    generation.current++;
    cache.current.clear();
    pending.current.clear();
    stale.current.clear();
    received.current = false;
    setTotal(null);
    setError(null);
    // Any window answers with the total; one past the end comes back empty, and the
    // virtualizer then asks for the windows it shows.
    fetchWindow(firstWindow.current);
  }, [fetchWindow]);

  // A live change: the newest window may have grown, and compaction rewrites current.jsonl.
  useEffect(() => {
    if (revision === 0) return;
    const gen = generation.current;
    api.readMessages({ uuid, view, from: 1, limit: 0 }).then(
      (page) => {
        if (gen !== generation.current) return;
        const change = ++changes.current;
        for (const w of changedWindows(cache.current, view, page.total))
          stale.current.set(w, change);
        setTotal(page.total);
        bump();
      },
      () => undefined, // the next event retries; the rows on screen stay valid
    );
  }, [api, uuid, view, revision]);

  const ensure = useCallback(
    (first: number, last: number) => {
      for (let w = Math.floor(first / WINDOW_SIZE); w <= Math.floor(last / WINDOW_SIZE); w++) {
        if (!cache.current.has(w) || stale.current.has(w)) fetchWindow(w);
      }
    },
    [fetchWindow],
  );

  return {
    total,
    error,
    at: (position) =>
      cache.current.get(Math.floor(position / WINDOW_SIZE))?.[position % WINDOW_SIZE],
    ensure,
    call: (id) => (id ? calls.current.get(id) : undefined),
    result: (id) => results.current.get(id),
  };
}
