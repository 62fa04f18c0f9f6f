import path from 'node:path';
import { BrowserWindow, screen } from 'electron';
import { mainWindowOptions } from './window-options';
import {
  loadWindowState,
  placeOnDisplays,
  saveWindowState,
  trackWindowState,
} from './window-state';

/**
 * The main window at its remembered size and place (if that is still on a display), with
 * the secure preferences of window-options.ts; shown once its first paint is ready.
 */
export function createMainWindow(options: {
  preload: string;
  userData: string;
  load: (win: BrowserWindow) => Promise<void>;
  onLoadError: (err: unknown) => void;
}): BrowserWindow {
  const stateFile = path.join(options.userData, 'window-state.json');
  const state = placeOnDisplays(
    loadWindowState(stateFile),
    screen.getAllDisplays().map((d) => d.workArea),
  );
  const { maximized, ...bounds } = state;
  const win = new BrowserWindow(mainWindowOptions(options.preload, bounds));
  if (maximized) win.maximize();
  trackWindowState(win, (s) => {
    try {
      saveWindowState(stateFile, s);
    } catch {
      // A read-only profile folder only costs the remembered size.
    }
  });
  win.once('ready-to-show', () => win.show());
  options.load(win).catch(options.onLoadError);
  return win;
}
