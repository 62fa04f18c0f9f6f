import { buildApiObject } from '../shared/api/build-api';
import type { WorkbenchEvent } from '../shared/api/events';
import { IPC_EVENT_CHANNEL, ipcChannel } from '../shared/api/operation-names';
import type { WindowApi } from '../shared/api/workbench-api';

/** The part of ipcRenderer the factory uses (the real one in the app, a fake in tests). */
export interface PreloadIpc {
  invoke(channel: string, payload: unknown): Promise<unknown>;
  on(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
}

/**
 * `window.api`: one function per contract operation, each invoking its own channel, and
 * `onEvent` for the live events. Only these closures cross the context bridge; the page
 * never gets ipcRenderer itself, so it cannot call any other channel.
 */
export function createWindowApi(ipc: PreloadIpc): WindowApi {
  return buildApiObject<WindowApi>(
    (name, input) => ipc.invoke(ipcChannel(name), input),
    (listener) => {
      const forward = (_event: unknown, payload: unknown): void =>
        listener(payload as WorkbenchEvent);
      ipc.on(IPC_EVENT_CHANNEL, forward);
      return () => {
        ipc.removeListener(IPC_EVENT_CHANNEL, forward);
      };
    },
  );
}
