import type { WorkerEvent } from '../shared/worker-protocol';

/** The link from a task process to its host, whichever fork started it. */
export interface WorkerChannel {
  send(event: WorkerEvent): void;
  onMessage(listener: (message: unknown) => void): void;
  /** Lets the process exit even though the channel is still open. */
  release(): void;
}

/** Electron's utilityProcess gives the child `process.parentPort`; Node's fork gives `process.send`. */
interface ParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): void;
}

export function connectToHost(): WorkerChannel | undefined {
  const port = (process as unknown as { parentPort?: ParentPort }).parentPort;
  if (port) {
    return {
      send: (event) => port.postMessage(event),
      onMessage: (listener) => port.on('message', (e) => listener(e.data)),
      release: () => undefined,
    };
  }
  if (process.send) {
    return {
      send: (event) => {
        if (process.connected) process.send!(event);
      },
      onMessage: (listener) => process.on('message', listener),
      release: () => {
        if (process.connected) process.disconnect();
      },
    };
  }
  return undefined;
}
