import type { ApiResult } from '../../shared/api/api-result';
import { isOperationName } from '../../shared/api/operation-names';
import { validateInput } from '../../shared/api/validate-input';
import type { WorkbenchHandlers } from '../../shared/api/workbench-api';
import { toErrorInfo } from './error-envelope';

/**
 * The one entry both transports use: the operation name and the raw payload as they came
 * off the wire. The payload is validated with the contract's schema before any handler
 * sees it; the answer is always the envelope, never a thrown error.
 */
export async function invokeOperation(
  handlers: WorkbenchHandlers,
  name: string,
  raw: unknown,
  onUnexpected?: (name: string, err: unknown) => void,
): Promise<ApiResult<unknown>> {
  if (!isOperationName(name)) {
    return {
      ok: false,
      error: {
        code: 'not_found',
        message: `no operation named ${JSON.stringify(name.slice(0, 80))}`,
      },
    };
  }
  const input = validateInput(name, raw);
  if (!input.ok) return input;
  try {
    const handler = handlers[name] as (input: unknown) => Promise<unknown>;
    return { ok: true, value: await handler(input.value) };
  } catch (err) {
    const error = toErrorInfo(err);
    if (error.code === 'internal') onUnexpected?.(name, err);
    return { ok: false, error };
  }
}
