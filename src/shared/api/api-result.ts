/**
 * How a result crosses a process boundary. Thrown errors lose their class and fields on
 * the way through Electron IPC (only the message survives), so every transport carries
 * this envelope and the client turns a failure back into an ApiError.
 */

export type ApiErrorCode =
  /** A request the workbench could not act on (the CLI's exit code 1). */
  | 'usage'
  | 'not_found'
  /** The input failed validation; `field` names where (zod issue path). */
  | 'bad_input'
  | 'conflict'
  | 'io'
  /** No credentials (web host: no token). */
  | 'unauthorized'
  /** Credentials or origin refused (wrong token, foreign window, cross-site request). */
  | 'forbidden'
  /** The host could not be reached or answered something that is not the envelope. */
  | 'transport'
  | 'internal';

export interface ApiErrorInfo {
  code: ApiErrorCode;
  message: string;
  /** For bad_input: the path of the offending field, e.g. `status[0]` or `patch.llm.provider`. */
  field?: string;
}

export type ApiResult<T> = { ok: true; value: T } | { ok: false; error: ApiErrorInfo };

export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly field: string | undefined;

  constructor(info: ApiErrorInfo) {
    super(info.message);
    this.name = 'ApiError';
    this.code = info.code;
    this.field = info.field;
  }
}

export function unwrapResult<T>(result: ApiResult<T>): T {
  if (result.ok) return result.value;
  throw new ApiError(result.error);
}

/** Whether `value` has the envelope's shape (anything else from a transport is a transport error). */
export function isApiResult(value: unknown): value is ApiResult<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { ok?: unknown; error?: { code?: unknown; message?: unknown } };
  if (v.ok === true) return 'value' in v;
  return (
    v.ok === false &&
    typeof v.error === 'object' &&
    v.error !== null &&
    typeof v.error.code === 'string' &&
    typeof v.error.message === 'string'
  );
}
