/**
 * JUnit XML of an evaluation run, so any CI system shows its cases: one `<testsuite>` per workflow, one
 * `<testcase>` per case (`classname` the agent and workflow, `name` the case's file stem and title, `time` in
 * seconds), a failing case's `<failure>` naming its failing step with what was expected and what happened.
 *
 * Source: issue "Evaluations" § CLI (`--junit <file>`).
 */
import type { CaseResult } from './run-case.ts';

/** Text made safe for XML attribute and element content (characters XML 1.0 forbids are dropped). */
export function xmlText(text: string): string {
  return text
    // deno-lint-ignore no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** One line saying why `result` failed: its failing step, and what was expected and what happened. */
export function failureLine(result: CaseResult): string {
  const step = result.steps.find((s) => s.index === result.failingStep);
  if (step === undefined) return 'failed';
  const what = step.result
    ? `expected ${step.result.expected}; got ${step.result.actual}`
    : `${step.error?.code ?? 'error'}: ${step.error?.message ?? 'the step failed'}`;
  return `step ${step.index + 1} (${step.kind}): ${what}`;
}

/** The JUnit XML document of the cases of one run of `agent`'s environment `environment`. */
export function junitReport(run: { agent: string; environment: string; cases: CaseResult[] }): string {
  const byWorkflow = new Map<string, CaseResult[]>();
  for (const result of run.cases) {
    const workflow = result.id.split('/')[0]!;
    byWorkflow.set(workflow, [...byWorkflow.get(workflow) ?? [], result]);
  }
  const total = (cases: CaseResult[]) => cases.reduce((sum, c) => sum + c.durationMs, 0);
  const failures = (cases: CaseResult[]) => cases.filter((c) => !c.passed).length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlText(`${run.agent} (${run.environment})`)}" tests="${run.cases.length}" ` +
    `failures="${failures(run.cases)}" time="${seconds(total(run.cases))}">`,
  ];
  for (const [workflow, cases] of byWorkflow) {
    lines.push(
      `  <testsuite name="${xmlText(workflow)}" tests="${cases.length}" failures="${failures(cases)}" ` +
        `time="${seconds(total(cases))}">`,
    );
    for (const result of cases) {
      const stem = result.id.slice(workflow.length + 1);
      const open = `    <testcase classname="${xmlText(`${run.agent}.${workflow}`)}" ` +
        `name="${xmlText(`${stem}: ${result.title}`)}" time="${seconds(result.durationMs)}"`;
      if (result.passed) {
        lines.push(`${open}/>`);
        continue;
      }
      const why = failureLine(result);
      lines.push(`${open}>`, `      <failure message="${xmlText(why)}">${xmlText(why)}</failure>`, '    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
