import type { TaskIndex } from '../db/task-index';
import type { EventHub } from './event-hub';

export const TASKS_POLL_MS = 1500;

/**
 * Tasks run by other processes (task processes, `cwb run` in a terminal, another host)
 * change tasks.db without telling this host. While a UI listens, a stamp that costs no
 * scan (SQLite's data_version and two indexed maxima) notices any change and announces
 * it, so the task table stays live whoever writes.
 */
export function watchTasksTable(
  index: Pick<TaskIndex, 'stamp'>,
  events: EventHub,
  intervalMs = TASKS_POLL_MS,
): () => void {
  const read = (): string => index.stamp();
  let timer: NodeJS.Timeout | undefined;
  let last = '';
  const tick = (): void => {
    try {
      const now = read();
      if (now !== last) {
        last = now;
        events.publish({ type: 'tasks-changed', reason: 'external', uuids: [] });
      }
    } catch {
      // A busy or closing database: try again on the next tick.
    }
  };
  const update = (count: number): void => {
    if (count > 0 && timer === undefined) {
      last = read();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    } else if (count === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  const stop = events.onListenerCount(update);
  update(events.size);
  return () => {
    stop();
    update(0);
  };
}
