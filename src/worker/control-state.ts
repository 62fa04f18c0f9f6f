import type { ControlState } from '../core/agent/agent-types';
import type { TaskIndex } from '../core/db/task-index';

/** How often a task process looks in tasks.db for a request from another process. */
const POLL_MS = 500;

/**
 * Pause, stop and compact requests reach a task process three ways: a host message (the
 * process was started by `cwb run`, `cwb serve` or the app), the `control` column of
 * tasks.db (`cwb pause UUID` from any other process), and SIGTERM/SIGINT (treated as
 * pause, so a shutdown leaves a resumable task).
 */
export class TaskControl implements ControlState {
  private pause = false;
  private compact = false;
  private readonly stop = new AbortController();
  private timer: NodeJS.Timeout | undefined;

  get stopSignal(): AbortSignal {
    return this.stop.signal;
  }

  pauseRequested(): boolean {
    return this.pause;
  }

  compactRequested(): boolean {
    return this.compact;
  }

  clearCompactRequest(): void {
    this.compact = false;
  }

  request(action: 'pause' | 'stop' | 'compact'): void {
    if (action === 'pause') this.pause = true;
    else if (action === 'compact') this.compact = true;
    else this.stop.abort(new Error('stopped'));
  }

  /** Starts watching tasks.db and signals for this task. */
  watch(repo: TaskIndex, uuid: string): void {
    this.timer = setInterval(() => {
      try {
        const action = repo.takeControl(uuid);
        if (action) this.request(action);
      } catch {
        // a busy or closed database is tried again on the next tick
      }
    }, POLL_MS);
    this.timer.unref();
    process.on('SIGTERM', () => this.request('pause'));
    process.on('SIGINT', () => this.request('pause'));
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
