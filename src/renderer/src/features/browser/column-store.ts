import { create } from 'zustand';

const STORAGE_KEY = 'cwb.taskColumns';

/**
 * Columns hidden by default so that the table fits 1400 px without clipping; each can be
 * shown again from the Columns menu.
 */
export const DEFAULT_HIDDEN: readonly string[] = ['type', 'user', 'created', 'duration'];

export const MIN_COLUMN_PX = 56;
export const MAX_COLUMN_PX = 900;

interface ColumnState {
  hidden: string[];
  /** Widths the user dragged, in px, by column id (others keep their default track). */
  widths: Record<string, number>;
  /** Shown columns the table has no room for at its width now (column-fit.ts); not saved. */
  squeezed: string[];
  toggle(id: string): void;
  setSqueezed(ids: string[]): void;
  setWidth(id: string, px: number): void;
  reset(): void;
}

/** Which task-table columns show and how wide, remembered in localStorage. */
export const useColumnStore = create<ColumnState>((set, get) => {
  const saved = readSaved();
  const save = (patch: Partial<Pick<ColumnState, 'hidden' | 'widths'>>): void => {
    set(patch);
    try {
      const { hidden, widths } = get();
      localStorage.setItem(STORAGE_KEY, JSON.stringify({ hidden, widths }));
    } catch {
      // storage can be unavailable (private windows): the choice lasts for this session
    }
  };
  return {
    hidden: saved.hidden ?? [...DEFAULT_HIDDEN],
    widths: saved.widths ?? {},
    squeezed: [],
    setSqueezed: (ids) => {
      if (ids.join() !== get().squeezed.join()) set({ squeezed: ids });
    },
    toggle: (id) => {
      const { hidden } = get();
      save({ hidden: hidden.includes(id) ? hidden.filter((h) => h !== id) : [...hidden, id] });
    },
    setWidth: (id, px) =>
      save({
        widths: {
          ...get().widths,
          [id]: Math.round(Math.max(MIN_COLUMN_PX, Math.min(MAX_COLUMN_PX, px))),
        },
      }),
    reset: () => save({ hidden: [...DEFAULT_HIDDEN], widths: {} }),
  };
});

function readSaved(): Partial<Pick<ColumnState, 'hidden' | 'widths'>> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}');
    if (!parsed || typeof parsed !== 'object') return {};
    const { hidden, widths } = parsed as Record<string, unknown>;
    const out: Partial<Pick<ColumnState, 'hidden' | 'widths'>> = {};
    if (Array.isArray(hidden) && hidden.every((h) => typeof h === 'string')) out.hidden = hidden;
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
