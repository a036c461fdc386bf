/**
 * The closing line of scripts/test: a test file whose setup (beforeAll) failed reports its tests as skipped, and
 * they must count as failed, so the line never says "0 failed" over a red run.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of scripts/lib without type declarations
import { summariseReport } from './summarise-tests.mjs';

const test = (fullName: string, status: string) => ({ fullName, status });

describe('summariseReport', () => {
  it('counts passed, failed and skipped tests with their reasons', () => {
    const report = { testResults: [{ name: '/x/a.test.ts', status: 'failed', assertionResults: [
      test('ok', 'passed'), test('broken', 'failed'), test('later (skipped: no server here)', 'skipped'),
    ] }] };
    const summary = summariseReport(report);
    expect([summary.passed, summary.failed]).toEqual([1, 1]);
    expect(summary.skipped).toEqual([expect.stringContaining('— no server here')]);
  });

  it('counts the tests of a file whose setup failed as failed, not skipped', () => {
    const report = { testResults: [{ name: '/x/b.test.ts', status: 'failed', assertionResults: [
      test('first', 'skipped'), test('second', 'skipped'),
    ] }] };
    expect(summariseReport(report)).toEqual({ passed: 0, failed: 2, skipped: [] });
  });

  it('counts a failed file without any test as one failure', () => {
    expect(summariseReport({ testResults: [{ name: '/x/c.test.ts', status: 'failed', assertionResults: [] }] }))
      .toEqual({ passed: 0, failed: 1, skipped: [] });
  });
});
