// A vitest reporter that records why each skipped test was skipped: the note given to `ctx.skip(note)`
// (vitest keeps it out of its JSON report). scripts/test adds it with
// `--reporter=./scripts/lib/skip-notes-reporter.mjs` and CAIRN_SKIP_NOTES=<file>; it writes a JSON array of
// { file, fullName, note } there, fullName built as vitest's JSON report builds it (ancestor titles and the
// test's title joined by spaces), for scripts/lib/summarise-tests.mjs.
import { writeFileSync } from 'node:fs';

/** Records skip notes; writes them at the end of the run to $CAIRN_SKIP_NOTES (nothing when unset). */
export default class SkipNotesReporter {
  notes = [];

  onTestCaseResult(testCase) {
    const result = testCase.result();
    if (result.state !== 'skipped' || !result.note) return;
    const titles = [];
    for (let suite = testCase.task.suite; suite; suite = suite.suite) titles.unshift(suite.name);
    this.notes.push({ file: testCase.module.moduleId, fullName: [...titles, testCase.task.name].join(' '), note: result.note });
  }

  onTestRunEnd() {
    if (process.env.CAIRN_SKIP_NOTES) writeFileSync(process.env.CAIRN_SKIP_NOTES, JSON.stringify(this.notes));
  }
}
