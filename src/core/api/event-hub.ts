import type { Unsubscribe, WorkbenchEvent } from '../../shared/api/events';

export type EventListener = (event: WorkbenchEvent) => void;

/**
 * Fans live events out to every connected UI (one Electron window, or each SSE client of
 * `cwb serve`). A listener that throws is dropped rather than allowed to stop the others.
 */
export class EventHub {
  private readonly listeners = new Set<EventListener>();
  private readonly watchers = new Set<(count: number) => void>();

  subscribe(listener: EventListener): Unsubscribe {
    this.listeners.add(listener);
    this.notifyCount();
    return () => {
      if (this.listeners.delete(listener)) this.notifyCount();
    };
  }

  publish(event: WorkbenchEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        this.listeners.delete(listener);
        this.notifyCount();
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }

  /** Called with the listener count whenever it changes (pollers run only while someone listens). */
  onListenerCount(watcher: (count: number) => void): Unsubscribe {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  private notifyCount(): void {
    for (const watcher of this.watchers) watcher(this.listeners.size);
  }
}
