import type { IncomingHttpHeaders } from 'node:http';
import { TransportError } from './http-post-file';
import type { LlmError } from './llm-error';

/** How a failed call is tried again: exponential backoff with jitter, Retry-After honored. */
export interface RetryPolicy {
  /** Further attempts after the first (default 4). */
  retries: number;
  baseDelayMs: number;
  /** Longest wait, also for a Retry-After that asks for more. */
  maxDelayMs: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** [0, 1), for jitter; injectable so tests are exact. */
  random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 4,
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
  sleep: abortableSleep,
  random: Math.random,
};

/**
 * Delay before retry number `attempt` (0 = the first retry). A server's Retry-After wins;
 * otherwise base·2^attempt scaled by a random factor in [0.5, 1), so many processes that
 * failed together do not come back together.
 */
export function retryDelay(attempt: number, policy: RetryPolicy, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.maxDelayMs);
  const exponential = Math.min(policy.baseDelayMs * 2 ** attempt, policy.maxDelayMs);
  return Math.round(exponential * (0.5 + policy.random() / 2));
}

/**
 * Retry-After (seconds or an HTTP date) or the `retry-after-ms` some OpenAI-compatible
 * servers send; undefined when absent or unreadable.
 */
export function parseRetryAfter(
  headers: IncomingHttpHeaders,
  now = Date.now(),
): number | undefined {
  const ms = single(headers['retry-after-ms']);
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const value = single(headers['retry-after'])?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Whether text of the current attempt already reached the caller. */
export interface AttemptState {
  shown: boolean;
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the retries are spent. `toError`
 * turns whatever was thrown into an LlmError, whose `retryable` decides. A failure after
 * text was shown is final: a new attempt would show it twice. An abort, also during the
 * wait, ends everything with the cancelled error.
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
  toError: (error: unknown) => LlmError,
  attempt: (state: AttemptState) => Promise<T>,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    const state: AttemptState = { shown: false };
    try {
      return await attempt(state);
    } catch (caught) {
      const error = toError(signal?.aborted ? cancelled() : caught);
      if (!error.retryable || retry >= policy.retries || state.shown) throw error;
      try {
        await policy.sleep(retryDelay(retry, policy, error.retryAfterMs), signal);
      } catch (sleepError) {
        throw toError(sleepError);
      }
      if (signal?.aborted) throw toError(cancelled());
    }
  }
}

function cancelled(): TransportError {
  return new TransportError('cancelled', 'the request was cancelled');
}

/** setTimeout as a promise that rejects with a cancelled TransportError on abort. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(cancelled());
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(cancelled());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
