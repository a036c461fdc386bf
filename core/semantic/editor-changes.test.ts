/**
 * The editor's helpers: validation of edited texts with the saved ones (as Publish validates), line diffs,
 * and the changes between a published build and the saved sources.
 */
import { describe, expect, it } from 'vitest';
import { changesBetween, lineDiff, maxDiffChars, validateEdited } from './editor-changes.ts';
import type { SourceSnapshot } from './sources.ts';

/** A valid model file defining model `name` with one dataset. */
const model = (name: string) =>
  `version: "0.1.1"\nsemantic_model:\n  - name: ${name}\n    datasets:\n      - name: t\n        source: data.t\n ` +
  `       fields:\n          - name: id\n            expression:\n              dialects:\n                - ` +
  `dialect: ANSI_SQL\n                  expression: id\n`;
const snapshot = (
  revision: number,
  models: Record<string, string>,
  data: SourceSnapshot['data'] = [],
): SourceSnapshot => ({ revision, commitId: `c${revision}`, models, data, savedAt: '2026-11-24T00:00:00Z' });
const file = (name: string, sha256: string, size: number) => ({ name, sha256, size, objectKey: `k/${sha256}` });

describe('validateEdited', () => {
  it('finds no problem in valid files and the problem of an edited file with its line', () => {
    expect(validateEdited({ 'a.yaml': model('a') }, {})).toEqual([]);
    const problems = validateEdited({ 'a.yaml': model('a') }, { 'a.yaml': 'version: "0.1.1"\nsemantic_model: [\n' });
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toMatchObject({ file: 'a.yaml' });
  });

  it(
    'validates the saved files not edited too, so a model name used twice ' + 'shows; a deleted file no longer counts',
    () => {
      const saved = { 'a.yaml': model('a'), 'b.yaml': model('b') };
      expect(validateEdited(saved, { 'c.yml': model('c') })).toEqual([]);
      const twice = validateEdited(saved, { 'a.yml': model('a') });
      expect(twice).toHaveLength(1);
      expect(twice[0].reason).toMatch(/already used/);
      expect(validateEdited(saved, { 'a.yml': model('a') }, ['a.yaml'])).toEqual([]);
    },
  );
});

describe('lineDiff', () => {
  it('answers nothing for equal texts', () => {
    expect(lineDiff('a.yaml', 'x\ny\n', 'x\ny\n')).toEqual({ added: 0, removed: 0, diff: '' });
  });

  it('writes a unified diff with three lines of context and counts', () => {
    const before = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'].join('\n') + '\n';
    const after = ['1', '2', '3', '4', 'five', '6', '7', '8', '9', '10', '11'].join('\n') + '\n';
    const { added, removed, diff } = lineDiff('m.yaml', before, after);
    expect([added, removed]).toEqual([2, 1]);
    expect(diff).toBe(
      '--- a/m.yaml\n+++ b/m.yaml\n@@ -2,9 +2,10 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n 9\n 10\n+11\n',
    );
  });

  it('splits far-apart changes into hunks and names /dev/null for a new file', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    const changed = [...lines];
    changed[1] = 'two';
    changed[27] = 'twenty-eight';
    const { diff } = lineDiff('m.yaml', lines.join('\n'), changed.join('\n'));
    expect(diff.match(/^@@ .* @@$/gm)).toEqual(['@@ -1,5 +1,5 @@', '@@ -25,6 +25,6 @@']);
    expect(lineDiff('n.yaml', undefined, 'a\nb\n')).toEqual({
      added: 2,
      removed: 0,
      diff: '--- /dev/null\n+++ b/n.yaml\n@@ -0,0 +1,2 @@\n+a\n+b\n',
    });
    expect(lineDiff('n.yaml', 'a\n', undefined).diff).toBe('--- a/n.yaml\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-a\n');
  });

  it('cuts a very long diff and says so', () => {
    const big = Array.from({ length: 20_000 }, (_, i) => `row ${i} ${'x'.repeat(20)}`).join('\n');
    const { diff, added } = lineDiff('big.yaml', undefined, big);
    expect(added).toBe(20_000);
    expect(diff.length).toBeLessThan(maxDiffChars + 200);
    expect(diff).toMatch(/diff cut at 100000 characters \(20000 lines added, 0 removed in all\)\n$/);
  });
});

describe('changesBetween', () => {
  it('counts everything as added when nothing was published', () => {
    const saved = snapshot(2, { 'a.yaml': 'x\n' }, [file('t.csv', 's1', 10)]);
    expect(changesBetween(undefined, saved)).toEqual({
      publishedRevision: null,
      sourceRevision: 2,
      models: [{
        file: 'a.yaml',
        status: 'added',
        added: 1,
        removed: 0,
        diff: '--- /dev/null\n+++ b/a.yaml\n@@ -0,0 +1,1 @@\n+x\n',
      }],
      data: [{ name: 't.csv', status: 'added', size: 10, previousSize: null }],
    });
  });

  it('lists added, removed and changed files, sorted, and leaves unchanged ones out', () => {
    const published = snapshot(1, { 'a.yaml': 'a\n', 'b.yaml': 'b\n', 'same.yaml': 's\n' }, [
      file('keep.csv', 'k', 1),
      file('old.csv', 'o', 2),
      file('t.csv', 't1', 3),
    ]);
    const saved = snapshot(3, { 'b.yaml': 'b2\n', 'c.yaml': 'c\n', 'same.yaml': 's\n' }, [
      file('keep.csv', 'k', 1),
      file('new.csv', 'n', 4),
      file('t.csv', 't2', 5),
    ]);
    const changes = changesBetween(published, saved);
    expect(changes.publishedRevision).toBe(1);
    expect(changes.sourceRevision).toBe(3);
    expect(changes.models.map((m) => [m.file, m.status, m.added, m.removed])).toEqual([['a.yaml', 'removed', 0, 1], [
      'b.yaml',
      'changed',
      1,
      1,
    ], ['c.yaml', 'added', 1, 0]]);
    expect(changes.data).toEqual([
      { name: 'new.csv', status: 'added', size: 4, previousSize: null },
      { name: 'old.csv', status: 'removed', size: null, previousSize: 2 },
      { name: 't.csv', status: 'changed', size: 5, previousSize: 3 },
    ]);
    expect(changesBetween(saved, saved)).toMatchObject({ models: [], data: [] });
  });
});
