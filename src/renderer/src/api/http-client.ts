import { buildApiObject } from '../../../shared/api/build-api';
import { ApiError, isApiResult, unwrapResult } from '../../../shared/api/api-result';
import {
  HTTP_API_PREFIX,
  HTTP_EVENTS_PATH,
  type OperationName,
} from '../../../shared/api/operation-names';
import type { EventListener, WorkbenchApi } from '../../../shared/api/workbench-api';
import type { Unsubscribe } from '../../../shared/api/events';
import { createEventStream } from './event-stream';

export interface HttpClientOptions {
  /** The server's origin ('' = the page's own). */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer`; the session cookie also works without it. */
  token: string | null;
  fetch?: typeof fetch;
  events?: (listener: EventListener) => Unsubscribe;
}

/** The browser: `cwb serve`'s API over POST /api/<operation> and its SSE stream. */
export function createHttpClient(options: HttpClientOptions): WorkbenchApi {
  const base = options.baseUrl ?? '';
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const call = async (name: OperationName, input: unknown): Promise<unknown> => {
    let response: Response;
    try {
      response = await doFetch(`${base}${HTTP_API_PREFIX}${name}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...(options.token && { Authorization: `Bearer ${options.token}` }),
        },
        body: JSON.stringify(input ?? {}),
        credentials: 'same-origin',
      });
    } catch (err) {
      throw new ApiError({
        code: 'transport',
        message: `cannot reach the workbench server (${err instanceof Error ? err.message : String(err)})`,
      });
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    if (!isApiResult(body)) {
      throw new ApiError({
        code: 'transport',
        message: `${name}: the server answered ${response.status} ${response.statusText}`.trim(),
      });
    }
    return unwrapResult(body);
  };
  return buildApiObject<WorkbenchApi>(
    call,
    options.events ?? createEventStream(`${base}${HTTP_EVENTS_PATH}`),
  );
}
