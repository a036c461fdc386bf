/**
 * The evaluation gate's side of runs on the in-memory document store: a gated publish's run is queued (origin
 * `publish`, on the draft) and waited for until it ends, its verdict and summary read back; a build without cases
 * cannot pass; a run that does not end in time fails the publish with `evaluation_timeout`; the summary names each
 * failing case (at most ten); a promotion counts only a passing run of every case of the very build.
 * Source: issue "Evaluations" § Gate.
 */
import { describe, expect, it } from 'vitest';
import type { AgentFile } from '../agent/documents.ts';
import { NO_USAGE } from '../model/cost.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { evaluateBuild, type GateDeps, passingRunOf, runSummary } from './gate.ts';
import { evaluationCollections, type EvaluationRunRecord } from './model.ts';
import type { CaseResult } from './run-case.ts';

const files: AgentFile[] = [
  {
    path: 'workflows/answer/tests/one.test.yaml',
    text: 'title: One\nsteps:\n  - send: hi\n  - reply: {includes: a}\n',
  },
];
const agent = { orgId: 'org-1', agentId: 'agent-1', slug: 'desk' };
const failedCase = (id: string): CaseResult => ({
  id,
  title: id,
  passed: false,
  failingStep: 1,
  steps: [{
    index: 1,
    kind: 'reply',
    passed: false,
    result: { assertion: 'reply', passed: false, expected: 'includes a', actual: 'the reply b' },
  }],
  durationMs: 5,
  judgeUsage: { ...NO_USAGE },
});

function world(end?: (run: EvaluationRunRecord) => Partial<EvaluationRunRecord>) {
  let now = 0;
  let n = 0;
  const docs = createMemoryDocumentStore();
  const runs = docs.collection<EvaluationRunRecord>(evaluationCollections.runs);
  const queued: string[] = [];
  const deps: GateDeps = {
    docs,
    clock: { now: () => new Date(Date.UTC(2026, 10, 27) + now) },
    ids: { newId: () => `${(n += 1)}`, randomBytes: (k: number) => new Uint8Array(k), sha256Hex: async () => '' },
    enqueue: async (runId) => {
      queued.push(runId);
    },
    // A dispatcher that ends the run between two reads of the gate.
    sleep: async (ms) => {
      now += ms;
      const open = await runs.findOne({ _id: queued.at(-1)!, status: 'queued' });
      if (open && end) await runs.updateOne({ _id: open._id }, { $set: end(open) });
    },
    waitMs: 10_000,
  };
  return { deps, runs, queued };
}

const of = (build = { buildId: 'b1', commitId: 'c1', files }) => ({
  agent,
  environment: 'main',
  build,
  startedBy: 's',
});

describe('evaluateBuild', () => {
  it("queues a run of every case of the build (a draft's, started by a publish) and reads its verdict", async () => {
    const { deps, runs, queued } = world((run) => ({ status: 'failed', cases: [failedCase(run.caseIds[0]!)] }));
    const verdict = await evaluateBuild(deps, of());
    expect(queued).toEqual(['ev-1']);
    expect(await runs.findOne({ _id: 'ev-1' })).toMatchObject({
      draft: true,
      origin: 'publish',
      selection: {},
      buildId: 'b1',
      caseIds: ['answer/one'],
    });
    expect(verdict).toEqual({
      runId: 'ev-1',
      passed: false,
      summary: 'evaluation run ev-1 failed: 0 of 1 case(s) passed; failing: answer/one at step 2 (reply): expected ' +
        'includes a; got the reply b',
    });
    const passing = world((run) => ({ status: 'passed', cases: [{ ...failedCase(run.caseIds[0]!), passed: true }] }));
    expect(await evaluateBuild(passing.deps, of())).toMatchObject({ passed: true });
  });

  it('cannot pass a build without cases, and gives up on a run that does not end in time', async () => {
    const { deps, queued } = world();
    const none = await evaluateBuild(deps, of({ buildId: 'b2', commitId: 'c2', files: [] }));
    expect(none.passed).toBe(false);
    expect(none.summary).toMatch(/^its draft has no case to run \(/);
    expect(queued).toEqual([]);
    await expect(evaluateBuild(deps, of())).rejects.toMatchObject({ code: 'evaluation_timeout', status: 504 });
  });
});

describe('runSummary and passingRunOf', () => {
  const base = (id: string, extra: Partial<EvaluationRunRecord>): EvaluationRunRecord => ({
    _id: id,
    schemaVersion: 1,
    orgId: 'org-1',
    agentId: 'agent-1',
    agentSlug: 'desk',
    environment: 'main',
    buildId: 'b1',
    commitId: 'c1',
    selection: {},
    status: 'passed',
    caseIds: [],
    cases: [],
    current: null,
    error: null,
    startedBy: 's',
    createdAt: new Date(Date.UTC(2026, 10, 27)),
    startedAt: null,
    endedAt: null,
    judgeUsage: { ...NO_USAGE },
    ...extra,
  });

  it('names at most ten failing cases, and says why a run could not run', () => {
    const ids = Array.from({ length: 12 }, (_, i) => `answer/c${i}`);
    const summary = runSummary(base('ev-9', { status: 'failed', caseIds: ids, cases: ids.map(failedCase) }));
    expect(summary).toMatch(/^evaluation run ev-9 failed: 0 of 12 case\(s\) passed; failing: answer\/c0 at step 2/);
    expect(summary).toContain('answer/c9 at');
    expect(summary).not.toContain('answer/c10 at');
    expect(summary).toMatch(/; and 2 more$/);
    const error = base('ev-8', { status: 'error', error: { code: 'build_missing', message: 'the build is gone' } });
    expect(runSummary(error)).toBe('evaluation run ev-8 could not run: the build is gone');
  });

  it('counts only a passing run of every case of the very build', async () => {
    const docs = createMemoryDocumentStore();
    const runs = docs.collection<EvaluationRunRecord>(evaluationCollections.runs);
    await runs.insertOne(base('ev-1', { selection: { stem: 'one' } }));
    await runs.insertOne(base('ev-2', { status: 'failed' }));
    await runs.insertOne(base('ev-3', { buildId: 'b2' }));
    await runs.insertOne(base('ev-4', { agentId: 'agent-2' }));
    expect(await passingRunOf({ docs }, 'agent-1', 'b1')).toBeUndefined();
    await runs.insertOne(base('ev-5', {}));
    expect(await passingRunOf({ docs }, 'agent-1', 'b1')).toBe('ev-5');
  });
});
