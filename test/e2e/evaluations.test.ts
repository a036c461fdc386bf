/**
 * Evaluation runs end to end: the product with a models section pointing at the scripted model server, the evals
 * fixture agent (a passing case, a case whose reply names the wrong airline, a case whose rubric names its own
 * model) imported and published; `cairn eval run` starts a run through the API, the dispatcher runs each case as a
 * session through the turn queue and the turn workers, and the command's exit code, its `--json` and its
 * `--junit` agree with the verdicts. A run of the passing case alone exits 0. The cases' sessions belong to no
 * member and are marked with their run. A dispatcher killed mid-run is replaced: the case it ran fails interrupted
 * and the rest run on the restarted dispatcher. With the evaluation gate on, a publish of a draft whose case fails is
 * refused with the run's summary and passes after the fix (on the build a draft run wrote for the same commit); a
 * promotion into a gated environment of a build without a passing run is refused, and goes through after a run.
 * A recording run replays with no model call and the same verdicts; a replay of a changed prompt fails saying where
 * it diverges.
 * Source: issue "Evaluations" § Done when.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiPid, dispatcherPid, repoRoot, runDataUpdates, runCairn, runCairnAsync, startProduct, type ProductOptions, type RunningProduct } from '../helpers/product.ts';
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
const refused: ScriptedTurn = { status: 400 }; // d-delivered: the model refuses, so its session fails
const judged: ScriptedTurn = { text: '{"score": 0.9, "reason": "One airline."}' };
const script: ScriptedTurn[] = [
  answered('Delta'), // a-passes: the answer
  { text: 'Sure: {"score": 0.9, "reason": "It names Delta."}' }, // a-passes: the judge
  answered('United'), // b-wrong-reply
  answered('Delta'), // c-own-judge (its grade calls no model)
  refused, // d-delivered
  answered('Delta'), // the second run: a-passes alone
  { text: '{"score": 0.8, "reason": "One airline."}' },
  // The third run, whose dispatcher is killed while a-passes waits for this answer; then b, c and d.
  { delayMs: 600_000 },
  answered('United'),
  answered('Delta'),
  refused,
  // The gate: a publish of the draft runs its four cases; a, b, c and d as in the first run.
  answered('Delta'), judged, answered('United'), answered('Delta'), refused,
  // After the fix (b and c removed): a draft run, the gated publish, then a run before a promotion: a and d each.
  answered('Delta'), judged, refused,
  answered('Delta'), judged, refused,
  answered('Delta'), judged, refused,
  // A recording run of a-passes (its replays call no model).
  answered('Delta'), { text: '{"score": 0.85, "reason": "Names Delta."}' },
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
      ['answer/d-delivered', true, undefined],
    ]);
    expect(run.cases[0]!.steps.map((s) => s.kind)).toEqual([
      'send', 'parked', 'reply', 'variables', 'calledTool', 'grade', 'decide', 'succeeded', 'reachedState',
    ]);
    expect(run.cases[1]!.steps[1]!.result).toEqual({
      assertion: 'reply', passed: false, expected: 'includes Delta', actual: 'the reply United cancelled the most flights.',
    });
    expect(run.cases[2]!.steps[1]!.result?.actual).toContain('needs PLATFORM_API_BASE_URL, PLATFORM_API_KEY, PLATFORM_MODEL');
    expect(run.judgeUsage.inputTokens).toBeGreaterThan(0);
    // Costs at the scripted model's prices: the sessions' calls, and the judge's apart.
    const priced = run as unknown as { costUsd: number; judgeCostUsd: number; cases: { costUsd: number }[] };
    expect(priced.judgeCostUsd).toBeGreaterThan(0);
    expect(priced.costUsd).toBeCloseTo(priced.cases.reduce((sum, c) => sum + c.costUsd, 0), 10);
    expect(priced.cases[0]!.costUsd).toBeGreaterThan(0);
    // Progress on stderr, one line per case, and the summary.
    expect(result.stderr).toMatch(/PASS answer\/a-passes/);
    expect(result.stderr).toMatch(/FAIL answer\/b-wrong-reply: .*\n\s+step 2 \(reply\): expected includes Delta; got the reply United/);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuites name="evals (main)" tests="4" failures="2"');
    expect(xml.match(/<testcase /g)).toHaveLength(4);
    expect(xml.match(/<failure /g)).toHaveLength(2);
    expect(model.requests).toHaveLength(5);
  }, 180_000);

  it('marks each case\'s session with its run, belonging to no member', async () => {
    const response = await fetch(`${product.url}/api/sessions/${run.cases[0]!.sessionId}`);
    const { session } = await response.json() as { session: { status: string; evaluation?: unknown; startedBy?: string } };
    expect(session.status).toBe('succeeded');
    expect(session.startedBy).toBeUndefined();
    expect(session.evaluation).toEqual({ runId: run.id, caseId: 'answer/a-passes' });
  });

  it('an evaluation fires nothing of the real environment: the completion trigger on "answer" opened no session', async () => {
    // d-delivered's session failed after it had started: outside an evaluation, that fires "followup".
    expect(run.cases.find((c) => c.id === 'answer/d-delivered')?.sessionId).toBeDefined();
    const response = await fetch(`${product.url}/api/agents/evals/environments/main/workflows/followup/sessions`);
    expect(response.status).toBe(200);
    expect((await response.json() as { sessions: unknown[] }).sessions).toEqual([]);
  });

  it('a deliver step opens the session as a webhook delivery of the case\'s trigger', async () => {
    const delivered = run.cases[3]!;
    const response = await fetch(`${product.url}/api/sessions/${delivered.sessionId}`);
    const { session } = await response.json() as { session: { status: string; trigger: string; variables: Record<string, unknown>; evaluation?: unknown } };
    expect(session).toMatchObject({ status: 'failed', trigger: 'inbound', evaluation: { runId: run.id, caseId: 'answer/d-delivered' } });
    expect(session.variables.trigger).toEqual({
      id: 'inbound', type: 'webhook', deliveryId: `${run.id}/answer/d-delivered/1`, method: 'POST', contentType: 'application/json',
      userAgent: 'cairn-evaluation', requestId: null, query: { source: 'crm' }, body: { question: 'Which airline cancelled the most flights?' },
    });
    const asked = JSON.stringify(model.requests[4]!.body.messages);
    expect(asked).toContain(`A webhook delivery (${run.id}/answer/d-delivered/1) arrived; it is in the variable \\"trigger\\".`);
  });

  it('a run of the passing case alone exits 0, and list and show read the runs', async () => {
    const result = await runCairnAsync(product.url, ['eval', 'run', 'evals', '--env', 'main', '--case', 'a-passes'], mode);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^1 of 1 cases passed \(passed\); run ev-\S+; cost \$\d+\.\d{4}, judges \$\d+\.\d{4}$/m);
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
    while (model.requests.length < 8 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(model.requests).toHaveLength(8);
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
      ['answer/d-delivered', true, 'deliver'],
    ]);
    expect(model.requests).toHaveLength(11);
  }, 200_000);

  it('refuses a selection that matches no case, naming the cases', async () => {
    const result = await runCairnAsync(product.url, ['eval', 'run', 'evals', '--env', 'main', '--case', 'missing'], mode);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('no evaluation case matches case missing; the cases are answer/a-passes');
  });
});

type Operation = { id: string; status: string; error: { code: string; message: string } | null };
type EnvJson = { published: { buildId: string } | null; evaluationGate: boolean; builds: { id: string }[] };

/** A JSON call to the product as the dev user. */
async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${product.url}${path}`, {
    method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() as T };
}

/** Queues an environment operation of agent evals and waits for its end. */
async function operate(env: string, kind: string, body: unknown = {}): Promise<Operation> {
  const queued = await call<{ operation: Operation }>('POST', `/api/agents/evals/environments/${env}/${kind}`, body);
  expect(queued.status).toBe(202);
  for (const until = Date.now() + 150_000; Date.now() < until;) {
    const { body: { operation } } = await call<{ operation: Operation }>('GET', `/api/agents/evals/operations/${queued.body.operation.id}`);
    if (operation.status === 'succeeded' || operation.status === 'failed') return operation;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`operation ${kind} did not end; ${product.output.slice(-20).join('\n')}`);
}

const environment = async (env: string) => (await call<EnvJson>('GET', `/api/agents/evals/environments/${env}`)).body;

describe('the evaluation gate', () => {
  let fixed: string;

  it('refuses a publish whose draft has a failing case, with the run\'s summary; passes after the fix', async () => {
    const on = runCairn(product.url, ['environment', 'set', 'evals', '--env', 'main', '--evaluation-gate', 'on'], mode);
    expect(on.status, on.stderr).toBe(0);
    expect(on.stdout).toContain('evaluation gate of evals (main) is on');
    const before = (await environment('main')).published!.buildId;
    const refused = await operate('main', 'publish');
    expect(refused.status).toBe('failed');
    expect(refused.error!.code).toBe('evaluation_failed');
    expect(refused.error!.message).toMatch(/^Publish refused: environment "main" of agent "evals" has the evaluation gate on and evaluation run ev-\S+ failed: 2 of 4 case\(s\) passed; failing: answer\/b-wrong-reply at step 2 \(reply\): expected includes Delta; got the reply United .*; answer\/c-own-judge at step 2 \(grade\)/);
    expect((await environment('main')).published!.buildId).toBe(before);
    expect(model.requests).toHaveLength(16);
    // The fix: the failing cases go. A run of the draft writes a candidate build of its commit, not listed for Restore.
    const saved = await call('PUT', '/api/agents/evals/environments/main/files', {
      files: [], deletes: ['workflows/answer/tests/b-wrong-reply.test.yaml', 'workflows/answer/tests/c-own-judge.test.yaml'],
    });
    expect(saved.status).toBe(200);
    const draftRun = await runCairnAsync(product.url, ['--json', 'eval', 'run', 'evals', '--env', 'main', '--draft'], mode);
    expect(draftRun.status, draftRun.stderr).toBe(0);
    const { run } = JSON.parse(draftRun.stdout) as { run: { draft: boolean; buildId: string; status: string } };
    expect(run).toMatchObject({ draft: true, status: 'passed' });
    expect(run.buildId).not.toBe(before);
    expect((await environment('main')).builds.map((b) => b.id)).not.toContain(run.buildId);
    const published = await operate('main', 'publish');
    expect(published.status, JSON.stringify(published.error)).toBe('succeeded');
    fixed = (await environment('main')).published!.buildId;
    expect(fixed).toBe(run.buildId);
    expect((await environment('main')).builds.map((b) => b.id)).toContain(fixed);
    expect(model.requests).toHaveLength(22);
    const list = runCairn(product.url, ['--json', 'eval', 'list', 'evals', '--env', 'main'], mode);
    const runs = (JSON.parse(list.stdout) as { runs: { origin?: string; status: string; buildId: string }[] }).runs;
    expect(runs.filter((r) => r.origin === 'publish').map((r) => [r.status, r.buildId === fixed])).toEqual([
      ['passed', true], ['failed', false],
    ]);
  }, 300_000);

  it('refuses a promotion into a gated environment of a build without a passing run', async () => {
    expect((await operate('main', 'promote', { to: 'prod' })).status).toBe('succeeded');
    const gated = await call<EnvJson>('PATCH', '/api/agents/evals/environments/prod', { evaluationGate: true });
    expect(gated.body.evaluationGate).toBe(true);
    expect(runCairn(product.url, ['environment', 'set', 'evals', '--env', 'main', '--evaluation-gate', 'off'], mode).status).toBe(0);
    // A publish without the gate: a new build no run has passed.
    const saved = await call('PUT', '/api/agents/evals/environments/main/files', {
      files: [{ path: 'AGENTS.md', text: readFileSync(join(repoRoot, 'test/fixtures/agents/evals/AGENTS.md'), 'utf8') + '\nBe brief.\n' }],
    });
    expect(saved.status).toBe(200);
    expect((await operate('main', 'publish')).status).toBe('succeeded');
    expect(model.requests).toHaveLength(22);
    const unproven = (await environment('main')).published!.buildId;
    const refused = await operate('main', 'promote', { to: 'prod' });
    expect(refused.error).toEqual({
      code: 'evaluation_required',
      message: `Promote refused: environment "prod" has the evaluation gate on and build ${unproven} of "main" has no ` +
        'run in which every case passed; run `cairn eval run evals --env main` and promote again.',
    });
    expect((await environment('prod')).published!.buildId).toBe(fixed);
    const proven = await runCairnAsync(product.url, ['eval', 'run', 'evals', '--env', 'main'], mode);
    expect(proven.status, proven.stderr).toBe(0);
    expect((await operate('main', 'promote', { to: 'prod' })).status).toBe('succeeded');
    expect((await environment('prod')).published!.buildId).toBe(unproven);
    // A setting is the environment's Maintainer's: a bad value is refused naming the field.
    const bad = await call<{ error: { code: string; message: string } }>('PATCH', '/api/agents/evals/environments/prod', { evaluationGate: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('evaluationGate');
  }, 300_000);
});

describe('record and replay', () => {
  type Replayed = RunJson['run'] & { cassette?: string; replayOf?: string };
  // What was asserted and what happened; a replay reports no usage (it is free), so usage and cost are left out.
  const verdicts = (run: RunJson['run']) =>
    JSON.parse(JSON.stringify(run.cases.map((c) => ({ id: c.id, passed: c.passed, steps: c.steps })), (key, value: unknown) => (['judgeUsage', 'judgeCostUsd'].includes(key) ? undefined : value))) as unknown;

  it('replays a recorded run with no model call and the same verdicts; a changed prompt diverges', async () => {
    const recorded = await runCairnAsync(product.url, ['--json', 'eval', 'run', 'evals', '--env', 'main', '--case', 'a-passes', '--record'], mode);
    expect(recorded.status, recorded.stderr).toBe(0);
    const original = (JSON.parse(recorded.stdout) as { run: Replayed }).run;
    expect(original.cassette).toBe('record');
    const calls = model.requests.length;
    expect(calls).toBe(27);
    const replayed = await runCairnAsync(product.url, ['--json', 'eval', 'run', 'evals', '--env', 'main', '--case', 'a-passes', '--replay', original.id], mode);
    expect(replayed.status, replayed.stderr).toBe(0);
    const replay = (JSON.parse(replayed.stdout) as { run: Replayed }).run;
    expect(model.requests).toHaveLength(calls);
    expect(replay).toMatchObject({ cassette: 'replay', replayOf: original.id, status: 'passed' });
    expect(verdicts(replay)).toEqual(verdicts(original));
    expect(replay.judgeUsage.inputTokens).toBe(0);
    // A replay of a replay answers the same (a replay keeps what it answered).
    const again = await runCairnAsync(product.url, ['--json', 'eval', 'run', 'evals', '--env', 'main', '--case', 'a-passes', '--replay', replay.id], mode);
    expect(again.status, again.stderr).toBe(0);
    expect(model.requests).toHaveLength(calls);
    // A changed prompt in the draft: the replay fails at the first call, saying where it diverges.
    const agents = readFileSync(join(repoRoot, 'test/fixtures/agents/evals/AGENTS.md'), 'utf8');
    const saved = await call('PUT', '/api/agents/evals/environments/main/files', {
      files: [{ path: 'AGENTS.md', text: agents.replace('in one sentence', 'in two sentences') }],
    });
    expect(saved.status).toBe(200);
    const diverged = await runCairnAsync(product.url, ['--json', 'eval', 'run', 'evals', '--env', 'main', '--case', 'a-passes', '--draft', '--replay', original.id], mode);
    expect(diverged.status).toBe(1);
    const failed = (JSON.parse(diverged.stdout) as { run: Replayed }).run;
    expect(model.requests).toHaveLength(calls);
    expect(JSON.stringify(failed.cases[0]!.steps)).toContain(
      `this model call of case answer/a-passes is not in the recording of run ${original.id}: message 1 (system) ` +
        'differs from the recording',
    );
  }, 300_000);

  it('refuses a replay of a run that kept no cassette, of another agent, or with --record', async () => {
    const list = runCairn(product.url, ['--json', 'eval', 'list', 'evals', '--env', 'main'], mode);
    const plain = (JSON.parse(list.stdout) as { runs: Replayed[] }).runs.find((r) => r.cassette === undefined)!;
    const refused = await runCairnAsync(product.url, ['eval', 'run', 'evals', '--env', 'main', '--replay', plain.id], mode);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`Run ${plain.id} did not record its model calls; start a run with record`);
    const unknown = await call<{ error: { code: string; message: string } }>('POST', '/api/agents/evals/environments/main/evaluations', { replay: 'ev-nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).not.toContain('ev-nope');
    const both = await call<{ error: { code: string } }>('POST', '/api/agents/evals/environments/main/evaluations', { record: true, replay: plain.id });
    expect(both.status).toBe(400);
    expect(model.requests).toHaveLength(27);
  });

  it('after draft runs, gated publishes and recorded runs, "followup" still has no session', async () => {
    const response = await fetch(`${product.url}/api/agents/evals/environments/main/workflows/followup/sessions`);
    expect((await response.json() as { sessions: unknown[] }).sessions).toEqual([]);
  });

  it('after recorded runs, the API and the dispatcher start again: the census finds every document versioned', async () => {
    const from = product.output.length;
    const [api, dispatcher] = [apiPid(product.child.pid!), dispatcherPid(product.child.pid!)];
    process.kill(api, 'SIGKILL');
    process.kill(dispatcher, 'SIGKILL');
    let healthy = false;
    for (const until = Date.now() + 90_000; !healthy && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 500));
      const restarted = (() => { try { return apiPid(product.child.pid!) !== api; } catch { return false; } })();
      healthy = restarted && (await fetch(`${product.url}/api/health`).then((r) => r.ok, () => false));
    }
    expect(healthy, product.output.slice(from).join('\n')).toBe(true);
    expect(dispatcherPid(product.child.pid!)).not.toBe(dispatcher);
    // The census as an operator reads it: what a boot of any process would refuse.
    const listed = runDataUpdates(product, ['list'], mode);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('no pending data updates');
    expect(listed.stdout).not.toContain('refusing');
    expect(product.output.slice(from).filter((line) => line.includes('refusing to start'))).toEqual([]);
  }, 120_000);
});

describe('spend caps', () => {
  it('hold for evaluation cases: a reached cap fails each case at its first step, calling no model', async () => {
    const cap = '/api/agents/evals/environments/main/workflows/answer/spend-caps/day';
    expect((await call('PUT', cap, { limitUsd: 0.000001 })).status).toBe(200);
    try {
      const calls = model.requests.length;
      const capped = await runCairnAsync(product.url, ['--json', 'eval', 'run', 'evals', '--env', 'main'], mode);
      expect(capped.status).toBe(1);
      const { run } = JSON.parse(capped.stdout) as RunJson;
      expect(run.cases.map((c) => [c.id, c.passed, c.failingStep, c.steps[0]!.kind])).toEqual([
        ['answer/a-passes', false, 0, 'send'],
        ['answer/d-delivered', false, 0, 'deliver'],
      ]);
      expect(JSON.stringify(run.cases.map((c) => c.steps[0]))).toMatch(/"code":"spend_cap_reached".*"code":"spend_cap_reached"/);
      expect(model.requests).toHaveLength(calls);
    } finally {
      expect((await call('PUT', cap, { limitUsd: null })).status).toBe(200);
    }
  });
});
