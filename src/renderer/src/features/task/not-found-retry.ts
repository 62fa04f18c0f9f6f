import { ApiError } from '../../../../shared/api/api-result';

/**
 * A task opened right after it was started or imported may not be readable yet (its row or
 * folder is a moment behind the event that named it). Until the view has shown the task
 * once, not_found is retried with a growing delay (6.2 s in all) before it is an error.
 */
export const NOT_FOUND_RETRY_MS: readonly number[] = [200, 400, 800, 1600, 3200];

/** The delay before the next attempt, or null when the error should be shown. */
export function notFoundRetryDelay(
  err: unknown,
  attempt: number,
  shownBefore: boolean,
  delays: readonly number[] = NOT_FOUND_RETRY_MS,
): number | null {
  if (shownBefore || !(err instanceof ApiError) || err.code !== 'not_found') return null;
  return delays[attempt] ?? null;
}

export interface NotFoundRetryOptions {
  /** Whether the view has shown this task before: then not_found means it is gone. */
  shownBefore(): boolean;
  /** Whether the caller has moved on (another task, an unmounted view): stop retrying. */
  cancelled(): boolean;
  delays?: readonly number[];
  /** Called before each retry: the view can say "not found" at once while it keeps trying. */
  onRetry?(err: unknown): void;
}

/**
 * `call`, retried while it fails with not_found as `notFoundRetryDelay` allows. Rejects with
 * the last error when retries run out, the error is another one, or the caller cancelled;
 * callers ignore what arrives after they cancelled.
 */
export async function retryWhileNotFound<T>(
  call: () => Promise<T>,
  options: NotFoundRetryOptions,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const delay = notFoundRetryDelay(err, attempt, options.shownBefore(), options.delays);
      if (delay === null || options.cancelled()) throw err;
      options.onRetry?.(err);
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (options.cancelled()) throw err;
    }
  }
}
