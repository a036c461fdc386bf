/**
 * The retry policy: the delay doubles with each failure in a row from 30 s, and after five failed retries the
 * deployment stays in error. Source: spec/platform-service.md § Trigger deployment, § Limits.
 */
import { describe, expect, it } from 'vitest';
import { MAX_AUTOMATIC_RETRIES, planAfterFailure, RETRY_BASE_DELAY_MS, retryDelayMs } from './index.ts';

describe('the retry policy', () => {
  it('doubles the delay with each failure in a row: 30 s, 1, 2, 4, 8 minutes', () => {
    expect(RETRY_BASE_DELAY_MS).toBe(30_000);
    expect([1, 2, 3, 4, 5].map(retryDelayMs)).toEqual([30_000, 60_000, 120_000, 240_000, 480_000]);
  });

  it('plans the next retry after the first failure and each of the five retries but the last, then exhausts', () => {
    const now = new Date(Date.UTC(2026, 10, 24, 9, 0, 0));
    expect(MAX_AUTOMATIC_RETRIES).toBe(5);
    expect(planAfterFailure(1, now)).toEqual({
      nextRetryAt: new Date(now.getTime() + 30_000),
      retriesExhausted: false,
    });
    expect(planAfterFailure(5, now)).toEqual({
      nextRetryAt: new Date(now.getTime() + 480_000),
      retriesExhausted: false,
    });
    expect(planAfterFailure(6, now)).toEqual({ nextRetryAt: null, retriesExhausted: true });
  });
});
