/**
 * The editor's pure helpers: validating the texts being edited together with the saved ones (the validator
 * Publish uses), and what changed between the last published build and the saved sources (line diffs).
 *
 * Source: spec/semantic-query-service.md § What the service does (1–2), § States and transitions
 * (source files, production build); docs/decisions.md D9 (Editor: validation shown inline; Publish with what changed).
 */
import type { ChangesView, DataFileChange, ModelFileChange } from './api/editor.ts';
import type { ModelProblem } from './model.ts';
import { loadModels } from './osi/load-models.ts';
import { modelFiles } from './planes.ts';
import type { SourceSnapshot } from './sources.ts';

/**
 * Validates model files as Publish does (core/semantic/planes.ts `publish`: `loadModels` over the files sorted
 * by name), with `edited` texts in place of the saved ones, saved files not edited kept, and `deletes` left out.
 * @returns every problem of every file (empty when Publish would accept these files)
 */
export function validateEdited(
  saved: Record<string, string>,
  edited: Record<string, string>,
  deletes: string[] = [],
): ModelProblem[] {
  const models: Record<string, string> = { ...saved };
  for (const name of deletes) delete models[name];
  Object.assign(models, edited);
  return loadModels(modelFiles({ models })).problems;
}

/** Lines of context around each hunk of {@link lineDiff}. */
export const diffContextLines = 3;
/** Longest diff text of one file, characters; a longer one is cut with a last line saying so. */
export const maxDiffChars = 100_000;
/** Largest (lines before × lines after) of the changed middle compared line by line; larger middles count as all
 * replaced. */
const maxCompareCells = 4_000_000;

/**
 * Line diff of two texts: lines added and removed (a longest-common-subsequence match after trimming the
 * common start and end) and a unified diff with {@link diffContextLines} lines of context, headed
 * `--- a/<name>` / `+++ b/<name>` (`/dev/null` for a side that does not exist: `before`/`after` undefined).
 * Identical texts give 0, 0 and an empty diff.
 */
export function lineDiff(
  name: string,
  before: string | undefined,
  after: string | undefined,
): { added: number; removed: number; diff: string } {
  const a = linesOf(before ?? '');
  const b = linesOf(after ?? '');
  const ops = diffOps(a, b);
  const added = ops.filter((op) => op.kind === '+').length;
  const removed = ops.filter((op) => op.kind === '-').length;
  if (added === 0 && removed === 0) return { added, removed, diff: '' };
  const header = `--- ${before === undefined ? '/dev/null' : `a/${name}`}\n+++ ${
    after === undefined ? '/dev/null' : `b/${name}`
  }\n`;
  let diff = header + hunksOf(ops).join('');
  if (diff.length > maxDiffChars) {
    diff = `${
      diff.slice(0, maxDiffChars).replace(/[^\n]*$/, '')
    }… diff cut at ${maxDiffChars} characters (${added} lines added, ${removed} removed in all)\n`;
  }
  return { added, removed, diff };
}

/**
 * What Publish would change: model and data files of `saved` compared with `published` (undefined when nothing
 * was published: every saved file is "added"). Unchanged files are left out; each list is sorted by name.
 */
export function changesBetween(published: SourceSnapshot | undefined, saved: SourceSnapshot): ChangesView {
  const before = published?.models ?? {};
  const models: ModelFileChange[] = [];
  for (const file of unionOf(Object.keys(before), Object.keys(saved.models))) {
    const old = before[file];
    const now = saved.models[file];
    if (old === now) continue;
    const status = old === undefined ? 'added' : now === undefined ? 'removed' : 'changed';
    models.push({ file, status, ...lineDiff(file, old, now) });
  }
  const oldData = new Map((published?.data ?? []).map((d) => [d.name, d] as const));
  const newData = new Map(saved.data.map((d) => [d.name, d] as const));
  const data: DataFileChange[] = [];
  for (const name of unionOf([...oldData.keys()], [...newData.keys()])) {
    const old = oldData.get(name);
    const now = newData.get(name);
    if (old && now && old.sha256 === now.sha256) continue;
    data.push({
      name,
      status: !old ? 'added' : !now ? 'removed' : 'changed',
      size: now?.size ?? null,
      previousSize: old?.size ?? null,
    });
  }
  return { publishedRevision: published ? published.revision : null, sourceRevision: saved.revision, models, data };
}

function unionOf(a: string[], b: string[]): string[] {
  return [...new Set([...a, ...b])].sort((x, y) => x.localeCompare(y));
}

/** The lines of a text; a final newline does not start another line. */
function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

interface Op {
  kind: ' ' | '-' | '+';
  text: string;
}

function diffOps(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops: Op[] = a.slice(0, start).map((text) => ({ kind: ' ', text }));
  ops.push(...middleOps(a.slice(start, endA), b.slice(start, endB)));
  ops.push(...a.slice(endA).map((text): Op => ({ kind: ' ', text })));
  return ops;
}

/** Ops of the changed middle: a longest common subsequence when small enough, else all removed then all added. */
function middleOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0 || n * m > maxCompareCells) {
    return [...a.map((text): Op => ({ kind: '-', text })), ...b.map((text): Op => ({ kind: '+', text }))];
  }
  // lengths[i * (m + 1) + j] = LCS length of a[i..] and b[j..]
  const width = m + 1;
  const lengths = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i * width + j] = a[i] === b[j]
        ? lengths[(i + 1) * width + j + 1] + 1
        : Math.max(lengths[(i + 1) * width + j], lengths[i * width + j + 1]);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ kind: ' ', text: a[i] });
      i++;
      j++;
    } else if (lengths[(i + 1) * width + j] >= lengths[i * width + j + 1]) {
      ops.push({ kind: '-', text: a[i] });
      i++;
    } else {
      ops.push({ kind: '+', text: b[j] });
      j++;
    }
  }
  while (i < n) ops.push({ kind: '-', text: a[i++] });
  while (j < m) ops.push({ kind: '+', text: b[j++] });
  return ops;
}

/** Unified-diff hunks of `ops`, changes closer than twice the context joined into one hunk. */
function hunksOf(ops: Op[]): string[] {
  const changed = ops.map((op, index) => (op.kind === ' ' ? -1 : index)).filter((index) => index >= 0);
  const ranges: [number, number][] = [];
  for (const index of changed) {
    const last = ranges[ranges.length - 1];
    if (last && index - last[1] <= 2 * diffContextLines + 1) last[1] = index;
    else ranges.push([index, index]);
  }
  // Line numbers (1-based) in the old and new text where each op index starts.
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const op of ops) {
    oldAt.push(oldLine);
    newAt.push(newLine);
    if (op.kind !== '+') oldLine++;
    if (op.kind !== '-') newLine++;
  }
  return ranges.map(([first, last]) => {
    const from = Math.max(0, first - diffContextLines);
    const to = Math.min(ops.length - 1, last + diffContextLines);
    const slice = ops.slice(from, to + 1);
    const oldCount = slice.filter((op) => op.kind !== '+').length;
    const newCount = slice.filter((op) => op.kind !== '-').length;
    const oldStart = oldCount === 0 ? oldAt[from] - 1 : oldAt[from];
    const newStart = newCount === 0 ? newAt[from] - 1 : newAt[from];
    return `@@ -${oldStart},${oldCount} +${newStart},${newCount} @@\n${
      slice.map((op) => `${op.kind}${op.text}\n`).join('')
    }`;
  });
}
