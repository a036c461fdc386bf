/**
 * scripts/test's closing line over a real vitest run: a failing afterAll and an unhandled error make vitest exit 1,
 * and the line must then count them as failures (it read "N passed, 0 failed" before), with a reason each.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const dir = mkdtempSync(join(tmpdir(), 'cairn-summarise-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs vitest over `files` in a scratch project; returns its exit status and the summariser's output and status. */
function runAndSummarise(files: Record<string, string>) {
  const project = mkdtempSync(join(dir, 'p-'));
  symlinkSync(join(root, 'node_modules'), join(project, 'node_modules'));
  writeFileSync(join(project, 'vitest.config.mjs'), 'export default { test: { pool: "forks" } };\n');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(project, name), text);
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'TEST'));
  const report = join(project, 'report.json');
  const vitest = spawnSync(node, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=json',
    `--outputFile.json=${report}`], { cwd: project, env, encoding: 'utf8' });
  const summary = spawnSync(node, [join(root, 'scripts/lib/summarise-tests.mjs'), report,
    `--vitest-exit=${vitest.status}`], { cwd: project, env, encoding: 'utf8' });
  return { vitestStatus: vitest.status, output: summary.stdout, status: summary.status };
}

const passingTwice = "import { it, expect } from 'vitest';\nit('one', () => expect(1).toBe(1));\n"
  + "it('two', () => expect(2).toBe(2));\n";

describe('summarise-tests over a real vitest run', () => {
  it('counts a failing afterAll as a failure and names it', () => {
    const run = runAndSummarise({ 'a.test.ts': passingTwice.replace("import { it,", "import { afterAll, it,")
      + "afterAll(() => { throw new Error('afterAll broke'); });\n" });
    expect(run.vitestStatus).toBe(1);
    expect(run.output).toMatch(/^failed: a\.test\.ts .*afterAll broke$/m);
    expect(run.output).toMatch(/^2 passed, 1 failed, 0 skipped$/m);
    expect(run.status).toBe(1);
  });

  it('counts an unhandled error as a failure and says so', () => {
    const run = runAndSummarise({ 'b.test.ts': "import { it, expect } from 'vitest';\n"
      + "it('three', async () => { setTimeout(() => { throw new Error('boom'); }, 1);\n"
      + '  await new Promise((r) => setTimeout(r, 50)); expect(1).toBe(1); });\n' });
    expect(run.vitestStatus).toBe(1);
    expect(run.output).toMatch(/^failed: .*unhandled error/m);
    expect(run.output).toMatch(/^1 passed, 1 failed, 0 skipped$/m);
    expect(run.status).toBe(1);
  });

  it('prints a failure with a reason when vitest exits non-zero and its report shows none', () => {
    writeFileSync(join(dir, 'clean.json'), JSON.stringify({ success: true, testResults: [] }));
    const out = spawnSync(node, [join(root, 'scripts/lib/summarise-tests.mjs'), join(dir, 'clean.json'),
      '--vitest-exit=1', 'type-check=pass'], { encoding: 'utf8' });
    expect(out.stdout).toMatch(/^failed: vitest exited with status 1 .+$/m);
    expect(out.stdout).toMatch(/^1 passed, 1 failed, 0 skipped$/m);
    expect(out.status).toBe(1);
  });

  it('keeps a clean run clean', () => {
    const run = runAndSummarise({ 'c.test.ts': passingTwice });
    expect(run.vitestStatus).toBe(0);
    expect(run.output.trim()).toBe('2 passed, 0 failed, 0 skipped');
    expect(run.status).toBe(0);
  });
});
