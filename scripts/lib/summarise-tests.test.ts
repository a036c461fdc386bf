/**
 * The closing lines of scripts/test: a real vitest run over a fixture file with a passing, a failing and
 * three skipped tests (a reason through skipBecause, one through ctx.skip's note, one without), summarised by scripts/lib/summarise-tests.mjs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../../test/helpers/run-process.ts';

const root = resolve(import.meta.dirname, '../..');
const fixture = `
import { describe, expect, it } from 'vitest';
import { skipBecause } from '${join(root, 'core/testing/skip.ts')}';
it('passes', () => { expect(1).toBe(1); });
it('fails', () => { expect(1).toBe(2); });
it('needs a server', (ctx) => skipBecause(ctx, 'TEST_X_URI is not set: set it to run this'));
it.skip('is skipped silently', () => {});
describe('needs podman', () => { it('runs a container', (ctx) => ctx.skip('podman cannot run here')); });
`;

describe('scripts/lib/summarise-tests.mjs', () => {
  it('ends with "N passed, N failed, N skipped" after naming each skipped test with its reason, counting checks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-summary-'));
    writeFileSync(join(dir, 'fixture.test.ts'), fixture);
    const report = join(dir, 'report.json');
    const env = { ...process.env, CAIRN_SKIP_NOTES: join(dir, 'skip-notes.json') };
    await runProcess(join(root, 'node_modules/.bin/node'), [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir, '--reporter=json', `--outputFile.json=${report}`, `--reporter=${join(root, 'scripts/lib/skip-notes-reporter.mjs')}`], { cwd: dir, env });
    const summary = await runProcess(join(root, 'node_modules/.bin/node'), [join(root, 'scripts/lib/summarise-tests.mjs'), report, 'type-check=pass', 'domain smoke under Deno=fail'], { cwd: dir, env });
    const lines = summary.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe('2 passed, 2 failed, 3 skipped');
    expect(lines).toContain('skipped: fixture.test.ts › needs a server — TEST_X_URI is not set: set it to run this');
    expect(lines).toContain('skipped: fixture.test.ts › is skipped silently — no reason recorded');
    expect(lines).toContain('skipped: fixture.test.ts › needs podman runs a container — podman cannot run here');
    expect(lines).toContain('failed: domain smoke under Deno');
    expect(summary.status).toBe(1);
  });

  it('counts a missing report as a failure', async () => {
    const summary = await runProcess(join(root, 'node_modules/.bin/node'), [join(root, 'scripts/lib/summarise-tests.mjs'), '/nonexistent/report.json', 'type-check=pass'], { cwd: root });
    expect(summary.stdout.trim().split('\n').at(-1)).toBe('1 passed, 1 failed, 0 skipped');
    expect(summary.status).toBe(1);
  });
});
