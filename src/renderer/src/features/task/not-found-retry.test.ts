import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../shared/api/api-result';
import { NOT_FOUND_RETRY_MS, notFoundRetryDelay } from './not-found-retry';

const notFound = new ApiError({ code: 'not_found', message: 'no task 1234' });

describe('retrying a task that is not readable yet', () => {
  it('retries not_found with growing delays, then gives up', () => {
    const delays = NOT_FOUND_RETRY_MS.map((_, i) => notFoundRetryDelay(notFound, i, false));
    expect(delays).toEqual([...NOT_FOUND_RETRY_MS]);
    expect(delays.every((d, i) => i === 0 || d! > delays[i - 1]!)).toBe(true);
    expect(notFoundRetryDelay(notFound, NOT_FOUND_RETRY_MS.length, false)).toBeNull();
  });

  it('shows any other error at once, and not_found once the task was shown (deleted)', () => {
    expect(notFoundRetryDelay(new ApiError({ code: 'internal', message: 'x' }), 0, false)).toBe(
      null,
    );
    expect(notFoundRetryDelay(new Error('offline'), 0, false)).toBeNull();
    expect(notFoundRetryDelay(notFound, 0, true)).toBeNull();
  });
});
