// Prints the closing lines of scripts/test from vitest's JSON report and the checks scripts/test ran
// before vitest: one line per skipped test naming it and why, one line per failure vitest reports outside a test
// (a failing hook, an unhandled error), then "N passed, N failed, N skipped".
//
// Usage: CAIRN_SKIP_NOTES=<notes.json> node scripts/lib/summarise-tests.mjs <vitest-report.json>
//          [--vitest-exit=<status>] ["<check name>=pass|fail"]…
// Each check counts as one test. A skipped test's reason is `meta.skipReason` (set by
// core/testing/skip.ts's skipBecause), else the note given to `ctx.skip(note)` (recorded by
// scripts/lib/skip-notes-reporter.mjs in $CAIRN_SKIP_NOTES), else a "(skipped: …)" in its name; a skip
// with none of these is named with "no reason recorded". A missing report, or a test file that failed before any
// test ran, counts as one failure each; the tests of a file whose setup failed count as failed, not skipped. A file
// vitest marks failed with no failed test (an afterAll or a describe's hook failed) counts one failure; a run
// vitest marks unsuccessful (`success: false`, an unhandled error) with nothing else failed counts one; and a
// non-zero --vitest-exit with nothing counted failed counts one, so the line never says "0 failed" over a red run.
// Exits 1 when anything failed.
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * Counts, skip lines and suite-level failure lines of a parsed vitest JSON report (vitest 5's `--reporter=json`:
 * a file's `status` is "failed" and its `message` holds the error when a file-level hook failed; a describe's
 * failed hook leaves `message` empty; an unhandled error only sets the report's `success` to false).
 * @param {any} report - vitest's JSON report (`--reporter=json`)
 * @param {Array<{ file: string, fullName: string, note: string }>} notes - skip notes from skip-notes-reporter.mjs
 * @returns {{ passed: number, failed: number, skipped: string[], failures: string[] }} skipped: one line per
 *   skipped test; failures: one "failed: …" line per failure counted outside a failed test, with its reason
 */
export function summariseReport(report, notes = []) {
  let passed = 0;
  let failed = 0;
  const skipped = [];
  const failures = [];
  for (const suite of report.testResults ?? []) {
    const file = relative(process.cwd(), suite.name);
    const results = suite.assertionResults ?? [];
    const reason = suite.message ? `: ${firstLine(suite.message)}` : '';
    if (suite.status === 'failed' && results.length === 0) {
      failed += 1;
      failures.push(`failed: ${file} — the file failed before any test ran${reason}`);
    }
    // A file whose setup failed (beforeAll) reports its tests as skipped: each counts as failed, not skipped.
    const setupFailed = suite.status === 'failed' && !results.some((t) => t.status === 'failed');
    let failedHere = 0;
    for (const test of results) {
      if (test.status === 'passed') passed += 1;
      else if (test.status === 'failed' || setupFailed) failedHere += 1;
      else {
        const note = notes.find((n) => n.file === suite.name && n.fullName === test.fullName)?.note;
        skipped.push(`skipped: ${file} › ${test.fullName} — ${skipReason(test, note)}`);
      }
    }
    failed += failedHere;
    if (suite.status === 'failed' && results.length > 0 && failedHere === 0) {
      failed += 1;
      failures.push(`failed: ${file} — a hook (afterAll, afterEach or a describe's) failed after its tests passed`
        + (reason || ' (see vitest\'s output above)'));
    }
  }
  if (report.success === false && failed === 0) {
    failed += 1;
    failures.push('failed: vitest marked the run failed with every test passed: an unhandled error '
      + '(see "Unhandled Errors" in vitest\'s output above)');
  }
  return { passed, failed, skipped, failures };
}

function firstLine(text) {
  return String(text).split('\n')[0].slice(0, 300);
}

function skipReason(test, note) {
  if (typeof test.meta?.skipReason === 'string') return test.meta.skipReason;
  if (note) return note;
  const named = /\(skipped: ([^)]*)\)/.exec(test.fullName ?? '');
  if (named) return named[1];
  return test.status === 'todo' ? 'marked todo' : 'no reason recorded';
}

/**
 * The closing lines for a report path, an optional `--vitest-exit=<status>` and checks ("<name>=pass|fail").
 * @param {string[]} args - command-line arguments
 * @returns {{ lines: string[], status: number }} lines to print (the last is the counts); status 1 when anything failed
 */
export function summariseRun(args) {
  const exitArg = args.find((a) => a.startsWith('--vitest-exit='));
  const vitestExit = exitArg === undefined ? 0 : Number(exitArg.slice('--vitest-exit='.length));
  const [reportPath, ...checks] = args.filter((a) => a !== exitArg);
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
    lines.push(...summary.skipped, ...summary.failures);
  }
  if (vitestExit !== 0 && failed === 0) {
    failed += 1;
    lines.push(`failed: vitest exited with status ${exitArg.slice('--vitest-exit='.length)} though its report `
      + 'counts no failure (an unhandled error, a failing hook or a crash; see vitest\'s output above)');
  }
  for (const check of checks) {
    const at = check.lastIndexOf('=');
    const [name, outcome] = [check.slice(0, at), check.slice(at + 1)];
    if (outcome === 'pass') passed += 1;
    else { failed += 1; lines.push(`failed: ${name}`); }
  }
  const skippedCount = lines.filter((l) => l.startsWith('skipped: ')).length;
  lines.push(`${passed} passed, ${failed} failed, ${skippedCount} skipped`);
  return { lines, status: failed > 0 ? 1 : 0 };
}

function main(args) {
  const { lines, status } = summariseRun(args);
  lines.forEach((line) => console.log(line));
  return status;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(main(process.argv.slice(2)));
