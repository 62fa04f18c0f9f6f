import { buildApiObject } from '../../../shared/api/build-api';
import { ApiError, isApiResult, unwrapResult } from '../../../shared/api/api-result';
import type { OperationName } from '../../../shared/api/operation-names';
import type { WindowApi, WorkbenchApi } from '../../../shared/api/workbench-api';

/** The desktop app: `window.api` (from the preload) answers with envelopes; this unwraps them. */
export function createIpcClient(windowApi: WindowApi): WorkbenchApi {
  const call = async (name: OperationName, input: unknown): Promise<unknown> => {
    const method = windowApi[name] as (input?: unknown) => Promise<unknown>;
    const result = await method(input);
    if (!isApiResult(result)) {
      throw new ApiError({ code: 'transport', message: `${name}: unexpected answer from the app` });
    }
    return unwrapResult(result);
  };
  return buildApiObject<WorkbenchApi>(call, (listener) => windowApi.onEvent(listener));
}
