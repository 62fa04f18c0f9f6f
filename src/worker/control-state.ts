import type { ControlState } from '../core/agent/agent-types';
import type { TaskIndex } from '../core/db/task-index';

/** How often a task process looks in tasks.db for a request from another process. */
const POLL_MS = 500;

/**
 * Pause, stop and compact requests reach a task process three ways: a host message (the
 * process was started by `cwb run`, `cwb serve` or the app), the `control` column of
 * tasks.db (`cwb pause UUID` from any other process), and SIGTERM/SIGINT (treated as
 * pause, so a shutdown leaves a resumable task). A host that keeps the task's index reads
 * the column for it and sends what it finds as a message (TaskSupervisor): the process
 * then does not poll, which would make it wait on its host twice a second.
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

  /**
   * Starts watching tasks.db and signals for this task. `polled` says whether this process
   * reads the column itself now (not while its host does it for it).
   */
  watch(repo: TaskIndex, uuid: string, polled: () => boolean = () => true): void {
    this.timer = setInterval(() => {
      try {
        const action = polled() ? repo.takeControl(uuid) : null;
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
