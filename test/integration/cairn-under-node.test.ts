/**
 * The operator command runs under Node as installed (`npx cairn`, and scripts/start's seeding): Node 24 strips
 * types only, so nothing the command imports may use TypeScript-only syntax such as parameter properties or enums.
 * Importing the whole command graph is what `--help` does.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/product.ts';

describe('cairn under Node', () => {
  it('loads every command module and prints its usage', () => {
    const run = spawnSync(process.execPath, [join(repoRoot, 'bins/cairn/cli.js'), '--help'], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    expect(run.stderr).not.toMatch(/strip-only|SyntaxError/);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^  connection create --agent <slug>/m);
  });
});
