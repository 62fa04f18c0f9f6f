import { describe, expect, it } from 'vitest';
import { changedWindows, WINDOW_SIZE } from './use-message-windows';

const full = Array(WINDOW_SIZE).fill(0);

describe('changedWindows', () => {
  it('re-reads the newest window and one the history grew past since it was read', () => {
    // 199 messages were read into window 0; the task now has 201 (window 1 is new).
    const loaded = new Map([[0, Array(199).fill(0)]]);
    expect(changedWindows(loaded, 'history', 201).sort()).toEqual([0, 1]);
  });

  it('leaves full history windows alone: only the end of the history changes', () => {
    const loaded = new Map([
      [0, full],
      [3, full],
      [7, Array(20).fill(0)],
    ]);
    expect(changedWindows(loaded, 'history', 7 * WINDOW_SIZE + 25).sort()).toEqual([7]);
  });

  it('re-reads every loaded window of what the model sees after a change (a compaction)', () => {
    const loaded = new Map([
      [0, full],
      [2, full],
    ]);
    expect(changedWindows(loaded, 'current', 10).sort()).toEqual([0, 2]);
  });
});
