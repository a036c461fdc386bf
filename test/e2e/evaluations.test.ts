/**
 * Evaluation runs end to end: the product with a models section pointing at the scripted model server, the evals
 * fixture agent (a passing case, a case whose reply names the wrong airline, a case whose rubric names its own
 * model) imported and published; `cairn eval run` starts a run through the API, the dispatcher runs each case as a
 * session through the turn queue and the turn workers, and the command's exit code, its `--json` and its
 * `--junit` agree with the verdicts. A run of the passing case alone exits 0. The cases' sessions belong to no
 * member and are marked with their run. A dispatcher killed mid-run is replaced: the case it ran fails interrupted
 * and the rest run on the restarted dispatcher.
 * Source: issue "Evaluations" § Done when.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dispatcherPid, repoRoot, runCairn, runCairnAsync, startProduct, type ProductOptions, type RunningProduct } from '../helpers/product.ts';
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn, scriptedModels } from '../helpers/scripted-model-server.ts';

const mode: ProductOptions = {};
const answered = (airline: string): ScriptedTurn => ({
  text: `${airline} cancelled the most flights.`,
  toolCalls: [
    { name: 'platform_set_variables', arguments: { variables: { airline } } },
    { name: 'platform_advance', arguments: { to: 'review', reason: 'answered' } },
  ],
});
// The cases run one after the other in the order of their ids; the scripted model answers requests in order.
const script: ScriptedTurn[] = [
  answered('Delta'), // a-passes: the answer
  { text: 'Sure: {"score": 0.9, "reason": "It names Delta."}' }, // a-passes: the judge
  answered('United'), // b-wrong-reply
  answered('Delta'), // c-own-judge (its grade calls no model)
  answered('Delta'), // the second run: a-passes alone
  { text: '{"score": 0.8, "reason": "One airline."}' },
  // The third run, whose dispatcher is killed while a-passes waits for this answer; then b and c.
  { delayMs: 600_000 },
  answered('United'),
  answered('Delta'),
];

let model: ScriptedModelServer;
let product: RunningProduct;
let workDir: string;

beforeAll(async () => {
  model = await startScriptedModelServer(script);
  workDir = mkdtempSync(join(tmpdir(), 'cairn-evals-'));
  product = await startProduct({ PLATFORM_CONFIG: JSON.stringify({ models: scriptedModels(model) }) }, mode);
  const imported = runCairn(product.url, ['agent', 'import', join(repoRoot, 'test/fixtures/agents/evals'), '--agent', 'evals', '--publish'], mode);
  expect(imported.status, imported.stderr).toBe(0);
}, 180_000);

afterAll(async () => {
  await product?.stop();
  await model?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

type RunJson = { run: { id: string; status: string; cases: { id: string; passed: boolean; failingStep?: number; sessionId?: string; steps: { kind: string; result?: { expected: string; actual: string } }[] }[]; judgeUsage: { inputTokens: number } } };

describe('cairn eval run', () => {
  let run: RunJson['run'];

  it('runs every case: exit 1, --json and --junit agree with the verdicts', async () => {
    const junit = join(workDir, 'report.xml');
    const result = await runCairnAsync(product.url, ['--json', 'eval', 'run', 'evals', '--env', 'main', '--junit', junit], mode);
    expect(result.status, `${result.stderr}\n${product.output.slice(-30).join('\n')}`).toBe(1);
    run = (JSON.parse(result.stdout) as RunJson).run;
    expect(run.status).toBe('failed');
    expect(run.cases.map((c) => [c.id, c.passed, c.failingStep])).toEqual([
      ['answer/a-passes', true, undefined],
      ['answer/b-wrong-reply', false, 1],
      ['answer/c-own-judge', false, 1],
    ]);
    expect(run.cases[0]!.steps.map((s) => s.kind)).toEqual([
      'send', 'parked', 'reply', 'variables', 'calledTool', 'grade', 'decide', 'succeeded', 'reachedState',
    ]);
    expect(run.cases[1]!.steps[1]!.result).toEqual({
      assertion: 'reply', passed: false, expected: 'includes Delta', actual: 'the reply United cancelled the most flights.',
    });
    expect(run.cases[2]!.steps[1]!.result?.actual).toContain('needs PLATFORM_API_BASE_URL, PLATFORM_API_KEY, PLATFORM_MODEL');
    expect(run.judgeUsage.inputTokens).toBeGreaterThan(0);
    // Progress on stderr, one line per case, and the summary.
    expect(result.stderr).toMatch(/PASS answer\/a-passes/);
    expect(result.stderr).toMatch(/FAIL answer\/b-wrong-reply: .*\n\s+step 2 \(reply\): expected includes Delta; got the reply United/);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuites name="evals (main)" tests="3" failures="2"');
    expect(xml.match(/<testcase /g)).toHaveLength(3);
    expect(xml.match(/<failure /g)).toHaveLength(2);
    expect(model.requests).toHaveLength(4);
  }, 180_000);

  it('marks each case\'s session with its run, belonging to no member', async () => {
    const response = await fetch(`${product.url}/api/sessions/${run.cases[0]!.sessionId}`);
    const { session } = await response.json() as { session: { status: string; evaluation?: unknown; startedBy?: string } };
    expect(session.status).toBe('succeeded');
    expect(session.startedBy).toBeUndefined();
    expect(session.evaluation).toEqual({ runId: run.id, caseId: 'answer/a-passes' });
  });

  it('a run of the passing case alone exits 0, and list and show read the runs', async () => {
    const result = await runCairnAsync(product.url, ['eval', 'run', 'evals', '--env', 'main', '--case', 'a-passes'], mode);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^1 of 1 cases passed \(passed\); run ev-/);
    const list = runCairn(product.url, ['eval', 'list', 'evals', '--env', 'main'], mode);
    expect(list.stdout.split('\n').filter((l) => l.startsWith('ev-'))).toHaveLength(2);
    const show = runCairn(product.url, ['eval', 'show', run.id, 'evals', '--env', 'main'], mode);
    expect(show.stdout).toContain('FAIL answer/c-own-judge');
  }, 180_000);

  it('a dispatcher killed mid-run: the case it ran fails interrupted, the others run on the restarted one', async () => {
    const started = await fetch(`${product.url}/api/agents/evals/environments/main/evaluations`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}',
    });
    expect(started.status).toBe(202);
    const { run: third } = await started.json() as { run: { id: string } };
    const deadline = Date.now() + 30_000;
    while (model.requests.length < 7 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(model.requests).toHaveLength(7);
    process.kill(dispatcherPid(product.child.pid!), 'SIGKILL');
    let ended: RunJson['run'] | undefined;
    for (const until = Date.now() + 150_000; Date.now() < until;) {
      const answer = await fetch(`${product.url}/api/agents/evals/environments/main/evaluations/${third.id}`);
      const { run: now } = await answer.json() as RunJson;
      if (['passed', 'failed', 'error'].includes(now.status)) {
        ended = now;
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(ended, product.output.slice(-30).join('\n')).toBeDefined();
    expect(ended!.status).toBe('failed');
    expect(ended!.cases.map((c) => [c.id, c.passed, c.steps[c.failingStep ?? 0]!.kind])).toEqual([
      ['answer/a-passes', false, 'interrupted'],
      ['answer/b-wrong-reply', false, 'reply'],
      ['answer/c-own-judge', false, 'grade'],
    ]);
    expect(model.requests).toHaveLength(9);
  }, 200_000);

  it('refuses a selection that matches no case, naming the cases', async () => {
    const result = await runCairnAsync(product.url, ['eval', 'run', 'evals', '--env', 'main', '--case', 'missing'], mode);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('no evaluation case matches case missing; the cases are answer/a-passes');
  });
});
