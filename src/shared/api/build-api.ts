import type { Unsubscribe } from './events';
import { OPERATION_NAMES, type OperationName } from './operation-names';
import type { EventListener } from './workbench-api';

/**
 * An object with one method per operation, each forwarding to `call`, plus `onEvent`.
 * Every transport (preload, IPC client, HTTP client) is built here, so none can miss an
 * operation; the caller names the API type it builds (WorkbenchApi or WindowApi).
 */
export function buildApiObject<Api>(
  call: (name: OperationName, input: unknown) => Promise<unknown>,
  onEvent: (listener: EventListener) => Unsubscribe,
): Api {
  const api: Record<string, unknown> = { onEvent };
  for (const name of OPERATION_NAMES) api[name] = (input?: unknown) => call(name, input);
  // The loop above creates exactly the keys of the API type; TypeScript cannot follow a loop.
  return api as Api;
}
