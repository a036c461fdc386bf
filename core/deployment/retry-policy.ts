/**
 * The retry policy of a trigger deployment in error: retried automatically after a delay that doubles with each
 * failure in a row (30 s, 1, 2, 4 and 8 minutes), and left in error after five failed retries until a publish, a
 * credential change or a member's Retry now.
 *
 * Source: spec/platform-service.md § Trigger deployment, § Limits (trigger deployment retries).
 */

/** Delay before the first automatic retry of a deployment that failed (ms); each further failure doubles it. */
export const RETRY_BASE_DELAY_MS = 30_000;

/** Automatic retries of a deployment in error; once this many have failed, retries are exhausted. Source: spec §
 * Limits. */
export const MAX_AUTOMATIC_RETRIES = 5;

/** What follows a failure: when to retry next (null: retries exhausted). */
export interface RetryPlan {
  nextRetryAt: Date | null;
  retriesExhausted: boolean;
}

/**
 * The delay before the retry that follows the `failuresInRow`-th failure in a row.
 * @param failuresInRow - failed attempts since the deployment last served, at least 1
 * @returns milliseconds: 30 000 × 2^(failuresInRow − 1) (30 s, 60 s, 120 s, 240 s, 480 s)
 */
export function retryDelayMs(failuresInRow: number): number {
  return RETRY_BASE_DELAY_MS * 2 ** Math.max(0, failuresInRow - 1);
}

/**
 * The plan after a failure. The first failure is the deployment's own attempt (a publish, a credential change, a
 * Retry now); each later one is an automatic retry, so after 1 + {@link MAX_AUTOMATIC_RETRIES} failures in a row
 * the retries are exhausted.
 * @param failuresInRow - failed attempts in a row, this one included (≥ 1)
 * @param now - the moment of the failure
 */
export function planAfterFailure(failuresInRow: number, now: Date): RetryPlan {
  if (failuresInRow > MAX_AUTOMATIC_RETRIES) return { nextRetryAt: null, retriesExhausted: true };
  return { nextRetryAt: new Date(now.getTime() + retryDelayMs(failuresInRow)), retriesExhausted: false };
}
