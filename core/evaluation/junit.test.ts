/**
 * The JUnit XML of an evaluation run: suites per workflow, cases with their times, failures naming the failing step,
 * and text a report must escape (markup in a title or a reply, control characters). The checks read its exact text.
 * Source: issue "Evaluations" § CLI (`--junit`).
 */
import { describe, expect, it } from 'vitest';
import { failureLine, junitReport, xmlText } from './junit.ts';
import type { CaseResult } from './run-case.ts';

const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
const passed: CaseResult = {
  id: 'flights/cancelled',
  title: 'Cancelled flights',
  passed: true,
  steps: [{ index: 0, kind: 'send', passed: true }],
  durationMs: 1250,
  judgeUsage: usage,
};
const failed: CaseResult = {
  id: 'flights/tone',
  title: 'Says <who> & "why"',
  passed: false,
  failingStep: 1,
  steps: [
    { index: 0, kind: 'send', passed: true },
    {
      index: 1,
      kind: 'reply',
      passed: false,
      result: {
        assertion: 'reply',
        passed: false,
        expected: 'includes Delta',
        actual: 'the reply <b>United</b>\u0007',
      },
    },
  ],
  durationMs: 500,
  judgeUsage: usage,
};
const refused: CaseResult = {
  id: 'review/decide',
  title: 'Decides',
  passed: false,
  failingStep: 0,
  steps: [{ index: 0, kind: 'send', passed: false, error: { code: 'spend_cap_reached', message: 'Cap reached.' } }],
  durationMs: 10,
  judgeUsage: usage,
};

describe('junitReport', () => {
  it('writes one suite per workflow and one case per case, failures naming the step, text escaped', () => {
    expect(junitReport({ agent: 'flights-analyst', environment: 'main', cases: [passed, failed, refused] })).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<testsuites name="flights-analyst (main)" tests="3" failures="2" time="1.760">',
        '  <testsuite name="flights" tests="2" failures="1" time="1.750">',
        '    <testcase classname="flights-analyst.flights" name="cancelled: Cancelled flights" time="1.250"/>',
        '    <testcase classname="flights-analyst.flights" name="tone: Says &lt;who&gt; &amp; &quot;why&quot;" ' +
        'time="0.500">',
        '      <failure message="step 2 (reply): expected includes Delta; got the reply &lt;b&gt;United&lt;/b&gt;">' +
        'step 2 (reply): expected includes Delta; got the reply &lt;b&gt;United&lt;/b&gt;</failure>',
        '    </testcase>',
        '  </testsuite>',
        '  <testsuite name="review" tests="1" failures="1" time="0.010">',
        '    <testcase classname="flights-analyst.review" name="decide: Decides" time="0.010">',
        '      <failure message="step 1 (send): spend_cap_reached: Cap reached.">step 1 (send): spend_cap_reached: ' +
        'Cap reached.</failure>',
        '    </testcase>',
        '  </testsuite>',
        '</testsuites>',
        '',
      ].join('\n'),
    );
  });

  it('escapes the five XML characters and drops control characters XML forbids, keeping tabs and newlines', () => {
    expect(xmlText('a&b<c>d"e\'f\u0000g\u001Fh\ti\nj')).toBe('a&amp;b&lt;c&gt;d&quot;e&apos;fgh\ti\nj');
    expect(failureLine(passed)).toBe('failed');
  });
});
