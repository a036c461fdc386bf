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
    expect(summariseReport(report)).toMatchObject({ passed: 0, failed: 2, skipped: [] });
  });

  it('counts a failed file without any test as one failure', () => {
    expect(summariseReport({ testResults: [{ name: '/x/c.test.ts', status: 'failed', assertionResults: [] }] }))
      .toMatchObject({ passed: 0, failed: 1, skipped: [] });
  });
});

describe('suite-level failures and unhandled errors', () => {
  it('counts a file whose afterAll failed after its tests passed as one failure, naming the reason', () => {
    const report = { success: false, testResults: [{ name: '/x/d.test.ts', status: 'failed', message: 'afterAll broke',
      assertionResults: [test('one', 'passed'), test('two', 'passed')] }] };
    const summary = summariseReport(report);
    expect([summary.passed, summary.failed]).toEqual([2, 1]);
    expect(summary.failures).toEqual([expect.stringMatching(/d\.test\.ts .*afterAll broke/)]);
  });

  it('counts a failed describe hook (vitest leaves the message empty) as one failure with a reason', () => {
    const report = { success: false, testResults: [{ name: '/x/e.test.ts', status: 'failed', message: '',
      assertionResults: [test('inner four', 'passed')] }] };
    const summary = summariseReport(report);
    expect(summary.failed).toBe(1);
    expect(summary.failures[0]).toMatch(/e\.test\.ts .*hook/);
  });

  it('counts a run vitest marked unsuccessful with every file passed (an unhandled error) as one failure', () => {
    const report = { success: false, testResults: [{ name: '/x/f.test.ts', status: 'passed', message: '',
      assertionResults: [test('three', 'passed')] }] };
    const summary = summariseReport(report);
    expect([summary.passed, summary.failed]).toEqual([1, 1]);
    expect(summary.failures[0]).toMatch(/unhandled error/);
  });
});
