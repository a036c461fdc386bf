/**
 * Visible skips: a test that cannot run here says why, and scripts/test prints that reason beside the
 * test's name above its closing line (scripts/lib/summarise-tests.mjs reads `meta.skipReason` from
 * vitest's JSON report).
 *
 * Source: docs/decisions.md D6 § 4 (honest test counts); docs/architecture.md § Tests and measurements.
 */
import type { TestContext } from 'vitest';

/**
 * Skips the running test with `reason` recorded in its meta (for the closing summary) and in vitest's note.
 * @param ctx - the test's context (the first argument of the test function)
 * @param reason - what is missing and how to run the test, e.g. "TEST_DOCDB_URI is not set: …"
 * @throws always (vitest's skip signal); call it as `return skipBecause(ctx, …)`
 */
export function skipBecause(ctx: TestContext, reason: string): never {
  (ctx.task.meta as { skipReason?: string }).skipReason = reason;
  ctx.skip(reason);
  throw new Error('unreachable: ctx.skip() returned');
}
