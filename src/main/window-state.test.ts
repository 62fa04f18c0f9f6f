import fs from 'node:fs';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { useTempDir } from '../../test/support/temp-dir';
import {
  DEFAULT_WINDOW_STATE,
  loadWindowState,
  placeOnDisplays,
  saveWindowState,
  trackWindowState,
} from './window-state';

const tempDir = useTempDir();
const SCREEN = [{ x: 0, y: 0, width: 1920, height: 1080 }];

describe('window state', () => {
  it('round-trips through a JSON file and falls back to the default on nonsense', () => {
    const file = path.join(tempDir(), 'window-state.json');
    expect(loadWindowState(file)).toEqual(DEFAULT_WINDOW_STATE);
    saveWindowState(file, { x: 40, y: 50, width: 1000, height: 700, maximized: true });
    expect(loadWindowState(file)).toEqual({
      x: 40,
      y: 50,
      width: 1000,
      height: 700,
      maximized: true,
    });
    fs.writeFileSync(file, '{"width": -5}');
    expect(loadWindowState(file)).toEqual(DEFAULT_WINDOW_STATE);
    fs.writeFileSync(file, 'not json');
    expect(loadWindowState(file)).toEqual(DEFAULT_WINDOW_STATE);
  });

  it('keeps a place that is on a display, forgets one that is not, and never exceeds the display', () => {
    const on = { x: 100, y: 100, width: 1000, height: 700, maximized: false };
    expect(placeOnDisplays(on, SCREEN)).toEqual(on);
    const unplugged = { x: 3000, y: 100, width: 1000, height: 700, maximized: false };
    expect(placeOnDisplays(unplugged, SCREEN)).toEqual({
      width: 1000,
      height: 700,
      maximized: false,
    });
    const huge = { x: 0, y: 0, width: 5000, height: 4000, maximized: false };
    expect(placeOnDisplays(huge, SCREEN)).toMatchObject({ width: 1920, height: 1080 });
  });

  it('saves the normal bounds after changes settle, and at once on close', () => {
    vi.useFakeTimers();
    try {
      const win = Object.assign(new EventEmitter(), {
        getNormalBounds: () => ({ x: 1, y: 2, width: 800, height: 600 }),
        isMaximized: () => false,
      });
      const saved: unknown[] = [];
      trackWindowState(win, (s) => saved.push(s), 500);
      win.emit('resize');
      win.emit('move');
      expect(saved).toEqual([]);
      vi.advanceTimersByTime(500);
      expect(saved).toHaveLength(1);
      win.emit('close');
      expect(saved).toEqual([
        { x: 1, y: 2, width: 800, height: 600, maximized: false },
        { x: 1, y: 2, width: 800, height: 600, maximized: false },
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
