import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, abortableSleep, parseRetryAfter, retryDelay } from './retry';

describe('retryDelay', () => {
  const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1000, maxDelayMs: 10_000 };

  it('doubles per attempt with jitter in [0.5, 1) and a cap', () => {
    expect(retryDelay(0, { ...policy, random: () => 0 })).toBe(500);
    expect(retryDelay(2, { ...policy, random: () => 0.999 })).toBe(3998);
    expect(retryDelay(10, { ...policy, random: () => 0 })).toBe(5000);
  });

  it('follows Retry-After, capped', () => {
    expect(retryDelay(0, policy, 2000)).toBe(2000);
    expect(retryDelay(0, policy, 3_600_000)).toBe(10_000);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds, HTTP dates and retry-after-ms', () => {
    expect(parseRetryAfter({ 'retry-after': '2' })).toBe(2000);
    expect(parseRetryAfter({ 'retry-after': '0.5' })).toBe(500);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter({ 'retry-after': 'Wed, 01 Jan 2025 00:00:07 GMT' }, now)).toBe(7000);
    expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '9' })).toBe(250);
    expect(parseRetryAfter({ 'retry-after': 'soon' })).toBeUndefined();
    expect(parseRetryAfter({})).toBeUndefined();
  });
});

describe('abortableSleep', () => {
  it('rejects at once when aborted', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const sleeping = abortableSleep(60_000, controller.signal);
    controller.abort();
    await expect(sleeping).rejects.toMatchObject({ reason: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(10_000); // the sleep was 60 s
  });
});
