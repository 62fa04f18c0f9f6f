import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import type { ApiResult } from '../../shared/api/api-result';
import { WORKBENCH_FEATURES } from '../../shared/api/contract';
import { ipcChannel, type OperationName } from '../../shared/api/operation-names';

export interface ApiHandlerDeps {
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>;
  /** Validates the payload with the contract's schema and runs the operation (never throws). */
  invoke: (name: string, payload: unknown) => Promise<ApiResult<unknown>>;
  isTrustedSender: (event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>) => boolean;
  warn: (message: string) => void;
}

/**
 * One `ipcMain.handle` per operation of the contract, registered feature by feature.
 * Each call checks who sent it before anything else; the payload is validated by the
 * service with the same zod schema `cwb serve` uses. Returns a function that removes them.
 */
export function registerApiHandlers(deps: ApiHandlerDeps): () => void {
  const channels: string[] = [];
  for (const [feature, operations] of Object.entries(WORKBENCH_FEATURES)) {
    for (const name of Object.keys(operations) as OperationName[]) {
      const channel = ipcChannel(name);
      deps.ipcMain.handle(channel, async (event, payload: unknown) => {
        if (!deps.isTrustedSender(event)) {
          deps.warn(
            `refused ${feature}.${name} from an untrusted sender (${event.senderFrame?.url ?? 'no frame'})`,
          );
          return {
            ok: false,
            error: { code: 'forbidden', message: 'this IPC call does not come from the app' },
          } satisfies ApiResult<never>;
        }
        return deps.invoke(name, payload);
      });
      channels.push(channel);
    }
  }
  return () => {
    for (const channel of channels) deps.ipcMain.removeHandler(channel);
  };
}
