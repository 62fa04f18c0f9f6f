/**
 * Runs `refresh` at once on the first of a burst of events, then at most once per
 * `intervalMs` while they keep coming, and once more after the last one. A trailing-only
 * debounce would wait the whole interval after an isolated event (a new line in a watched
 * session shows late) and never fire while a running task sends events faster than it.
 */
export function refreshThrottle(
  refresh: () => void,
  intervalMs: number,
): { notify(): void; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastRun = -Infinity;
  let pending = false;
  const run = (): void => {
    timer = undefined;
    pending = false;
    lastRun = Date.now();
    refresh();
  };
  return {
    notify() {
      if (timer !== undefined) {
        pending = true;
        return;
      }
      const wait = lastRun + intervalMs - Date.now();
      if (wait <= 0) {
        run();
        // Events during the next interval are gathered into one trailing run.
        timer = setTimeout(() => {
          timer = undefined;
          if (pending) run();
        }, intervalMs);
      } else {
        pending = true;
        timer = setTimeout(run, wait);
      }
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
      pending = false;
    },
  };
}
