import type { WorkbenchApi } from '../../../shared/api/workbench-api';
import { createHttpClient } from './http-client';
import { createIpcClient } from './ipc-client';
import { takeSessionToken } from './session-token';

/**
 * The one place that knows about transports: the desktop app's preload puts `window.api`
 * in place; in a browser the page came from `cwb serve` and talks HTTP to it.
 */
export function createApi(win: Window): WorkbenchApi {
  if (win.api) return createIpcClient(win.api);
  const token = takeSessionToken(win.location, win.history, win.sessionStorage);
  return createHttpClient({ token });
}
