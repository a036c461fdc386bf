/**
 * `cairn agent validate <dir>` run as a real process: the demo agent is valid (exit 0, one summary line);
 * a broken copy prints each problem as `file:line:col key: message` (escaped for the terminal) and exits 1;
 * `--json` gives the list.
 * Source: docs/decisions.md D7 § Operators; docs/agent-format.md.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bunPath, repoRoot } from '../helpers/product.ts';

const demo = join(repoRoot, 'scripts/demo/agent');
let dir: string;
const cairn = (args: string[]) => spawnSync(bunPath, [join(repoRoot, 'bins/cairn/main.ts'), ...args], { encoding: 'utf8', env: { PATH: process.env.PATH! } });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-agent-'));
  cpSync(demo, dir, { recursive: true });
  const workflow = join(dir, 'workflows/flights-analyst/workflow.yaml');
  writeFileSync(workflow, readFileSync(workflow, 'utf8').replace('- to: answer', '- to: answers').replace('    title: Approve the answer', '    title: Approve the answer\n    approvers: [ops]'));
  writeFileSync(join(dir, 'workflows/flights-analyst/notes\u001b[2J.txt'), 'a stray file whose name carries a terminal escape');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cairn agent validate', () => {
  it('accepts the demo agent with a one-line summary', () => {
    const run = cairn(['agent', 'validate', demo]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe(`${demo}: valid (2 workflows, 10 states, 5 triggers, 1 skill, 2 test cases)`);
  });

  it('prints each problem of a broken copy as file:line:col key: message and exits 1', () => {
    const run = cairn(['agent', 'validate', dir]);
    expect(run.status).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toEqual([
      'workflows/flights-analyst/notes\\u001B[2J.txt:1:1 /: unknown file: workflows/flights-analyst/ holds only workflow.yaml, WORKFLOW.md, hooks/*.js and tests/*.test.yaml; move or remove notes\\u001B[2J.txt',
      expect.stringMatching(/^workflows\/flights-analyst\/workflow\.yaml:44:5 \/states\/review\/approvers: unknown key "approvers"; allowed keys here: title, instructions, type, triggers, transitions/),
      expect.stringMatching(/^workflows\/flights-analyst\/workflow\.yaml:50:13 \/states\/review\/transitions\/1\/to: transition to "answers", which is not a state of this workflow/),
      `${dir}: 3 problems; fix them and run cairn agent validate again`,
    ]);
  });

  it('gives the problem list as JSON with --json', () => {
    const run = cairn(['--json', 'agent', 'validate', dir]);
    expect(run.status).toBe(1);
    const result = JSON.parse(run.stdout) as { ok: boolean; problems: { file: string; line: number; column: number; key: string }[] };
    expect(result.ok).toBe(false);
    expect(result.problems.map((p) => `${p.file}:${p.line}:${p.column} ${p.key}`)).toEqual([
      'workflows/flights-analyst/notes\u001b[2J.txt:1:1 /',
      'workflows/flights-analyst/workflow.yaml:44:5 /states/review/approvers',
      'workflows/flights-analyst/workflow.yaml:50:13 /states/review/transitions/1/to',
    ]);
  });

  it('refuses a path that is not a directory with exit 1, and a missing one with a usage error', () => {
    const missing = cairn(['agent', 'validate', join(dir, 'nope')]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^cairn: .*nope is not a directory: give the folder holding AGENTS.md/);
    expect(cairn(['agent', 'validate']).status).toBe(2);
  });
});
