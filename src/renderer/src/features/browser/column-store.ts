import { create } from 'zustand';

const STORAGE_KEY = 'cwb.taskColumns';

/**
 * Columns hidden by default so that the table fits 1400 px without clipping; each can be
 * shown again from the Columns menu.
 */
export const DEFAULT_HIDDEN: readonly string[] = ['type', 'user', 'created', 'duration'];

/**
 * Columns that show by default only when the tasks call for them, until the user shows or
 * hides them: the host column, which says something only when tasks come from more than
 * one host (a fleet's index).
 */
export const AUTO_COLUMNS: readonly string[] = ['host'];

export const MIN_COLUMN_PX = 56;
export const MAX_COLUMN_PX = 900;

interface ColumnState {
  hidden: string[];
  /** Auto columns whose visibility the user has not chosen yet (see AUTO_COLUMNS). */
  auto: string[];
  /** Widths the user dragged, in px, by column id (others keep their default track). */
  widths: Record<string, number>;
  /** Shown columns the table has no room for at its width now (column-fit.ts); not saved. */
  squeezed: string[];
  setVisible(id: string, visible: boolean): void;
  setSqueezed(ids: string[]): void;
  setWidth(id: string, px: number): void;
  reset(): void;
}

/** What the tasks on screen say about the auto columns. */
export interface ColumnData {
  /** Distinct hosts among all tasks (TaskFacets.hosts). */
  hosts: number;
}

/** What the auto columns need to know, from the task list's state (no facets yet: none). */
export function columnData(pages: {
  state: { kind: string; facets?: { hosts: readonly unknown[] } | null };
}): ColumnData {
  return { hosts: pages.state.kind === 'ready' ? (pages.state.facets?.hosts.length ?? 0) : 0 };
}

/** The columns hidden now: the user's choices, and the auto columns the data does not call for. */
export function hiddenColumns(
  state: Pick<ColumnState, 'hidden' | 'auto'>,
  data: ColumnData,
): string[] {
  const wanted = (id: string): boolean => (id === 'host' ? data.hosts > 1 : false);
  return [...state.hidden, ...state.auto.filter((id) => !wanted(id))];
}

/** Which task-table columns show and how wide, remembered in localStorage. */
export const useColumnStore = create<ColumnState>((set, get) => {
  const saved = readSaved();
  const save = (patch: Partial<Pick<ColumnState, 'hidden' | 'auto' | 'widths'>>): void => {
    set(patch);
    try {
      const { hidden, auto, widths } = get();
      localStorage.setItem(STORAGE_KEY, JSON.stringify({ hidden, auto, widths }));
    } catch {
      // storage can be unavailable (private windows): the choice lasts for this session
    }
  };
  return {
    hidden: saved.hidden ?? [...DEFAULT_HIDDEN],
    auto: saved.auto ?? [...AUTO_COLUMNS],
    widths: saved.widths ?? {},
    squeezed: [],
    setSqueezed: (ids) => {
      if (ids.join() !== get().squeezed.join()) set({ squeezed: ids });
    },
    setVisible: (id, visible) => {
      const hidden = get().hidden.filter((h) => h !== id);
      save({
        hidden: visible ? hidden : [...hidden, id],
        auto: get().auto.filter((a) => a !== id),
      });
    },
    setWidth: (id, px) =>
      save({
        widths: {
          ...get().widths,
          [id]: Math.round(Math.max(MIN_COLUMN_PX, Math.min(MAX_COLUMN_PX, px))),
        },
      }),
    reset: () => save({ hidden: [...DEFAULT_HIDDEN], auto: [...AUTO_COLUMNS], widths: {} }),
  };
});

function readSaved(): Partial<Pick<ColumnState, 'hidden' | 'auto' | 'widths'>> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}');
    if (!parsed || typeof parsed !== 'object') return {};
    const { hidden, auto, widths } = parsed as Record<string, unknown>;
    const out: Partial<Pick<ColumnState, 'hidden' | 'auto' | 'widths'>> = {};
    const strings = (v: unknown): v is string[] =>
      Array.isArray(v) && v.every((h) => typeof h === 'string');
    if (strings(hidden)) out.hidden = hidden;
    if (strings(auto)) out.auto = auto.filter((id) => AUTO_COLUMNS.includes(id));
    if (widths && typeof widths === 'object') {
      out.widths = Object.fromEntries(
        Object.entries(widths).filter(
          (e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]),
        ),
      );
    }
    return out;
  } catch {
    return {};
  }
}
