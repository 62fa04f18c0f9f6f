import type { ApiErrorInfo } from '../../shared/api/api-result';
import { CwbError } from '../errors';
import { FieldError } from './field-error';

/** Node's file-system errors carry a code (ENOENT, EACCES, ...) worth keeping. */
function errnoCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : undefined;
}

/**
 * The envelope error for anything a handler threw. CwbErrors keep their code and message
 * (they are written for the user); file-system errors become `io`; anything else is an
 * internal error whose message is kept but whose stack stays in the host's log.
 */
export function toErrorInfo(err: unknown): ApiErrorInfo {
  if (err instanceof FieldError) return { code: err.code, message: err.message, field: err.field };
  if (err instanceof CwbError) return { code: err.code, message: err.message };
  const errno = errnoCode(err);
  if (errno) return { code: 'io', message: (err as Error).message };
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'internal', message: `internal error: ${message}` };
}
