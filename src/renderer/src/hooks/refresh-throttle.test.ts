import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { refreshThrottle } from './refresh-throttle';

describe('refreshThrottle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('refreshes at once on an isolated event', () => {
    const refresh = vi.fn();
    const t = refreshThrottle(refresh, 300);
    t.notify();
    expect(refresh).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1000);
    expect(refresh).toHaveBeenCalledTimes(1);
  });

  it('keeps refreshing, at most once per interval, while events never stop', () => {
    const runs: number[] = [];
    const t = refreshThrottle(() => runs.push(Date.now()), 300);
    // An event every 50 ms for 3 s: a trailing debounce would never fire.
    let lastEvent = 0;
    for (let ms = 0; ms < 3000; ms += 50) {
      lastEvent = Date.now();
      t.notify();
      vi.advanceTimersByTime(50);
    }
    expect(runs.length).toBeGreaterThanOrEqual(9);
    expect(runs.length).toBeLessThanOrEqual(11);
    for (let i = 1; i < runs.length; i++)
      expect(runs[i]! - runs[i - 1]!).toBeGreaterThanOrEqual(300);
    // The last event is not lost: a run follows it.
    vi.advanceTimersByTime(300);
    expect(runs.at(-1)!).toBeGreaterThanOrEqual(lastEvent);
  });

  it('gathers a burst into the first run and one after it', () => {
    const refresh = vi.fn();
    const t = refreshThrottle(refresh, 300);
    for (let i = 0; i < 10; i++) t.notify();
    expect(refresh).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(300);
    expect(refresh).toHaveBeenCalledTimes(2);
    t.cancel();
  });

  it('runs nothing after cancel', () => {
    const refresh = vi.fn();
    const t = refreshThrottle(refresh, 300);
    t.notify();
    t.notify();
    t.cancel();
    vi.advanceTimersByTime(1000);
    expect(refresh).toHaveBeenCalledTimes(1);
  });
});
