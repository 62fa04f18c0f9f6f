import type { Unsubscribe, WorkbenchEvent } from '../../../shared/api/events';
import type { EventListener } from '../../../shared/api/workbench-api';

/**
 * One EventSource shared by every listener, opened with the first and closed with the last.
 * It authenticates with the session cookie (EventSource cannot send headers) and
 * reconnects by itself after a drop.
 */
export function createEventStream(
  url: string,
  open: (url: string) => EventSource = (u) => new EventSource(u),
): (listener: EventListener) => Unsubscribe {
  const listeners = new Set<EventListener>();
  let source: EventSource | null = null;
  const dispatch = (message: MessageEvent<string>): void => {
    let event: WorkbenchEvent;
    try {
      event = JSON.parse(message.data) as WorkbenchEvent;
    } catch {
      return;
    }
    for (const listener of [...listeners]) listener(event);
  };
  return (listener) => {
    listeners.add(listener);
    if (!source) {
      source = open(url);
      source.addEventListener('message', dispatch);
    }
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && source) {
        source.close();
        source = null;
      }
    };
  };
}
