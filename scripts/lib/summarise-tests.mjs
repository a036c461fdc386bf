// Prints the closing lines of scripts/test from vitest's JSON report and the checks scripts/test ran
// before vitest: one line per skipped test naming it and why, then "N passed, N failed, N skipped".
//
// Usage: CAIRN_SKIP_NOTES=<notes.json> node scripts/lib/summarise-tests.mjs <vitest-report.json> ["<check name>=pass|fail"]…
// Each check counts as one test. A skipped test's reason is `meta.skipReason` (set by
// core/testing/skip.ts's skipBecause), else the note given to `ctx.skip(note)` (recorded by
// scripts/lib/skip-notes-reporter.mjs in $CAIRN_SKIP_NOTES), else a "(skipped: …)" in its name; a skip
// with none of these is named with "no reason recorded". A missing report, or a test file that failed before any test ran, counts
// as one failure each; the tests of a file whose setup failed count as failed, not skipped. Exits 1 when anything failed.
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * Counts and skip lines of a parsed vitest JSON report.
 * @param {any} report - vitest's JSON report (`--reporter=json`)
 * @param {Array<{ file: string, fullName: string, note: string }>} notes - skip notes from skip-notes-reporter.mjs
 * @returns {{ passed: number, failed: number, skipped: string[] }} skipped: one line per skipped test
 */
export function summariseReport(report, notes = []) {
  let passed = 0;
  let failed = 0;
  const skipped = [];
  for (const suite of report.testResults ?? []) {
    const results = suite.assertionResults ?? [];
    if (suite.status === 'failed' && results.length === 0) failed += 1;
    // A file whose setup failed (beforeAll) reports its tests as skipped: each counts as failed, not skipped.
    const setupFailed = suite.status === 'failed' && !results.some((t) => t.status === 'failed');
    for (const test of results) {
      if (test.status === 'passed') passed += 1;
      else if (test.status === 'failed' || setupFailed) failed += 1;
      else skipped.push(`skipped: ${relative(process.cwd(), suite.name)} › ${test.fullName} — ${skipReason(test, notes.find((n) => n.file === suite.name && n.fullName === test.fullName)?.note)}`);
    }
  }
  return { passed, failed, skipped };
}

function skipReason(test, note) {
  if (typeof test.meta?.skipReason === 'string') return test.meta.skipReason;
  if (note) return note;
  const named = /\(skipped: ([^)]*)\)/.exec(test.fullName ?? '');
  if (named) return named[1];
  return test.status === 'todo' ? 'marked todo' : 'no reason recorded';
}

function main([reportPath, ...checks]) {
  let passed = 0;
  let failed = 0;
  const lines = [];
  if (!reportPath || !existsSync(reportPath)) {
    failed += 1;
    lines.push('vitest wrote no report: counting it as a failure');
  } else {
    const notesPath = process.env.CAIRN_SKIP_NOTES;
    const notes = notesPath && existsSync(notesPath) ? JSON.parse(readFileSync(notesPath, 'utf8')) : [];
    const summary = summariseReport(JSON.parse(readFileSync(reportPath, 'utf8')), notes);
    passed += summary.passed;
    failed += summary.failed;
    lines.push(...summary.skipped);
  }
  for (const check of checks) {
    const at = check.lastIndexOf('=');
    const [name, outcome] = [check.slice(0, at), check.slice(at + 1)];
    if (outcome === 'pass') passed += 1;
    else { failed += 1; lines.push(`failed: ${name}`); }
  }
  const skippedCount = lines.filter((l) => l.startsWith('skipped: ')).length;
  lines.forEach((line) => console.log(line));
  console.log(`${passed} passed, ${failed} failed, ${skippedCount} skipped`);
  return failed > 0 ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(main(process.argv.slice(2)));
