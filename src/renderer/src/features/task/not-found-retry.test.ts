import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../shared/api/api-result';
import { NOT_FOUND_RETRY_MS, notFoundRetryDelay, retryWhileNotFound } from './not-found-retry';

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

describe('retryWhileNotFound', () => {
  const delays = [1, 2, 3];
  const failing = (failures: number, err: unknown = notFound) => {
    let calls = 0;
    const call = (): Promise<string> =>
      ++calls <= failures ? Promise.reject(err) : Promise.resolve(`ok after ${calls}`);
    return { call, calls: () => calls };
  };

  it('resolves once the task becomes readable', async () => {
    const f = failing(2);
    const options = { shownBefore: () => false, cancelled: () => false, delays };
    await expect(retryWhileNotFound(f.call, options)).resolves.toBe('ok after 3');
  });

  it('rejects with not_found when the retries run out', async () => {
    const f = failing(10);
    const options = { shownBefore: () => false, cancelled: () => false, delays };
    await expect(retryWhileNotFound(f.call, options)).rejects.toBe(notFound);
    expect(f.calls()).toBe(delays.length + 1);
  });

  it('stops at once for other errors, a task shown before, or a cancelled caller', async () => {
    const offline = new Error('offline');
    const other = failing(1, offline);
    await expect(
      retryWhileNotFound(other.call, { shownBefore: () => false, cancelled: () => false, delays }),
    ).rejects.toBe(offline);
    const shown = failing(1);
    await expect(
      retryWhileNotFound(shown.call, { shownBefore: () => true, cancelled: () => false, delays }),
    ).rejects.toBe(notFound);
    let cancelled = false;
    const gone = failing(5);
    const pending = retryWhileNotFound(gone.call, {
      shownBefore: () => false,
      cancelled: () => cancelled,
      delays: [20, 20, 20],
    });
    cancelled = true;
    await expect(pending).rejects.toBe(notFound);
    expect([other.calls(), shown.calls(), gone.calls()]).toEqual([1, 1, 1]);
  });
});
