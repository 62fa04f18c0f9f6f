import fs from 'node:fs';
import { z } from 'zod';
import { writeFileAtomic } from '../core/jsonl/atomic-write';

/** The window's size and place, kept in userData/window-state.json between runs. */
const windowStateSchema = z.object({
  x: z.number().int().optional(),
  y: z.number().int().optional(),
  width: z.number().int().min(400).max(20_000),
  height: z.number().int().min(300).max(20_000),
  maximized: z.boolean().default(false),
});
export type WindowState = z.infer<typeof windowStateSchema>;

export const DEFAULT_WINDOW_STATE: WindowState = { width: 1280, height: 820, maximized: false };

export interface Area {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** How much of the title bar must stay on a display for the saved place to be used. */
const MIN_VISIBLE = 64;

/** A saved state, or the default when the file is missing, unreadable or hand-edited into nonsense. */
export function loadWindowState(file: string): WindowState {
  try {
    const parsed = windowStateSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : { ...DEFAULT_WINDOW_STATE };
  } catch {
    return { ...DEFAULT_WINDOW_STATE };
  }
}

export function saveWindowState(file: string, state: WindowState): void {
  writeFileAtomic(file, `${JSON.stringify(state)}\n`);
}

/**
 * The saved place only if it is still on one of the displays (a monitor may have been
 * unplugged since), and never larger than the largest display.
 */
export function placeOnDisplays(state: WindowState, workAreas: readonly Area[]): WindowState {
  const widest = Math.max(...workAreas.map((a) => a.width), 400);
  const tallest = Math.max(...workAreas.map((a) => a.height), 300);
  const width = Math.min(state.width, widest);
  const height = Math.min(state.height, tallest);
  const { x, y } = state;
  const visible =
    x !== undefined &&
    y !== undefined &&
    workAreas.some(
      (a) =>
        Math.min(x + width, a.x + a.width) - Math.max(x, a.x) >= MIN_VISIBLE &&
        Math.min(y + MIN_VISIBLE, a.y + a.height) - Math.max(y, a.y) >= MIN_VISIBLE / 2,
    );
  return visible ? { ...state, width, height } : { width, height, maximized: state.maximized };
}

/** What trackWindowState needs of a BrowserWindow. */
export interface TrackedWindow {
  getNormalBounds(): Area;
  isMaximized(): boolean;
  on(event: 'resize' | 'move' | 'maximize' | 'unmaximize' | 'close', listener: () => void): unknown;
}

/** Saves the window's normal bounds (not the maximized ones) after changes settle, and on close. */
export function trackWindowState(
  win: TrackedWindow,
  save: (state: WindowState) => void,
  delayMs = 500,
): void {
  let timer: NodeJS.Timeout | undefined;
  const current = (): WindowState => ({ ...win.getNormalBounds(), maximized: win.isMaximized() });
  const later = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => save(current()), delayMs);
  };
  for (const event of ['resize', 'move', 'maximize', 'unmaximize'] as const) win.on(event, later);
  win.on('close', () => {
    clearTimeout(timer);
    save(current());
  });
}
