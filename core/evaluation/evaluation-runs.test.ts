/**
 * Evaluation runs on the in-memory document store with a recording job queue and a played case driver: a start
 * writes the run and queues its job (a refused add leaves no run); a dispatcher stopped between any two writes of a
 * run is replaced without running a case twice (the case it was running fails as interrupted, the cases done stay,
 * the rest run); a run already ended does nothing; the sweep queues again a run whose job was lost and ends `error`
 * one whose job ended without ending it. Source: issue "Evaluations" § Runs, § Done when.
 */
import { describe, expect, it } from 'vitest';
import type { AgentFile } from '../agent/documents.ts';
import { PlatformError } from '../ports/platform-error.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import type { CaseObservation } from './assertions.ts';
import { type EvaluationRunnerDeps, runEvaluation } from './evaluation-runner.ts';
import { ensureEvaluationIndexes, type EvaluationDeps, startEvaluationRun } from './evaluation-runs.ts';
import { sweepEvaluationRuns } from './evaluation-sweep.ts';
import { EVALUATION_QUEUE, evaluationCollections, type EvaluationRunRecord } from './model.ts';
import type { CaseDriver } from './run-case.ts';

const caseFile = (stem: string, reply: string) => ({
  path: `workflows/answer/tests/${stem}.test.yaml`,
  text: `title: Case ${stem}\nsteps:\n  - send: hi\n  - reply: {includes: ${reply}}\n`,
});
const files: AgentFile[] = [caseFile('one', 'hello'), caseFile('two', 'hello'), caseFile('three', 'bye')];

function world() {
  let now = new Date('2026-11-27T10:00:00Z');
  let n = 0;
  const clock = { now: () => now };
  const docs = createMemoryDocumentStore({ now: clock.now });
  const queued: { queue: string; jobId?: string }[] = [];
  let refuse = false;
  const deps: EvaluationDeps = {
    docs,
    clock,
    ids: { newId: () => `${(n += 1)}`, randomBytes: (k: number) => new Uint8Array(k), sha256Hex: async () => '' },
    resolveAgent: async () => ({ orgId: 'org-1', agentId: 'agent-1', slug: 'desk' }),
    publishedBuild: async () => ({ buildId: 'build-1', commitId: 'c1', files }),
    draftBuild: async () => ({ buildId: 'candidate-1', commitId: 'c2', files }),
    enqueue: async (runId) => {
      if (refuse) throw new PlatformError('queue_unavailable', 'The queue store refused the job.', { status: 503 });
      queued.push({ queue: EVALUATION_QUEUE, jobId: runId });
    },
  };
  /** Cases the driver opened, in order; opening `stopAt` never returns, as in a process that stopped (once). */
  const opened: string[] = [];
  let stopAt: string | undefined;
  const driver = (caseId: string): CaseDriver => ({
    open: async () => {
      if (stopAt === caseId) {
        stopAt = undefined;
        return new Promise<never>(() => undefined);
      }
      opened.push(caseId);
      return { sessionId: `s-${caseId}` };
    },
    act: async () => undefined,
    settle: async (): Promise<CaseObservation> => ({
      session: { status: 'awaiting_input', state: 'answer', trail: [], pending: null, variables: {} },
      messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello there' }],
    }),
  });
  const runner: EvaluationRunnerDeps = {
    docs,
    clock,
    filesOf: async () => files,
    driverFor: (_run, evaluationCase) => driver(evaluationCase.id),
    gradeFor: () => ({ presentVariables: [], judge: async () => ({ text: '', usage: zero }) }),
    log: () => undefined,
  };
  const runs = docs.collection<EvaluationRunRecord>(evaluationCollections.runs);
  return {
    deps,
    runner,
    runs,
    queued,
    opened,
    refuseQueue: () => (refuse = true),
    stopAt: (id: string) => (stopAt = id),
    later: (ms: number) => (now = new Date(now.getTime() + ms)),
  };
}
const zero = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
const caller = { subject: 'sub-ada', email: 'sub-ada@example.com' };
const ref = { agent: 'desk', environment: 'main' };

describe('evaluation runs', () => {
  it('a start writes the run queued with its cases and queues its job by the run id', async () => {
    const w = world();
    await ensureEvaluationIndexes(w.deps.docs);
    const run = await startEvaluationRun(w.deps, caller, { ...ref, workflow: 'answer' });
    expect(run).toMatchObject({
      _id: 'ev-1',
      status: 'queued',
      buildId: 'build-1',
      caseIds: ['answer/one', 'answer/three', 'answer/two'],
      startedBy: 'sub-ada',
      selection: { workflow: 'answer' },
    });
    expect(w.queued).toEqual([{ queue: EVALUATION_QUEUE, jobId: 'ev-1' }]);
    expect(await w.runs.findOne({ _id: 'ev-1' })).toMatchObject({ status: 'queued' });
  });

  it("starts a draft's run, a recording run, and a replay of an ended recording of the agent", async () => {
    const w = world();
    expect(await startEvaluationRun(w.deps, caller, { ...ref, draft: true })).toMatchObject({
      draft: true,
      buildId: 'candidate-1',
    });
    const recording = await startEvaluationRun(w.deps, caller, { ...ref, record: true });
    expect(recording.cassette).toBe('record');
    const replayOf = (replay: string, extra: object = {}) =>
      startEvaluationRun(w.deps, caller, { ...ref, replay, ...extra }).catch((e: { code: string }) => e.code);
    expect(await replayOf(recording._id)).toBe('run_not_ended');
    await w.runs.updateOne({ _id: recording._id }, { $set: { status: 'passed' } });
    expect(await replayOf(recording._id, { record: true })).toBe('invalid_request');
    expect(await startEvaluationRun(w.deps, caller, { ...ref, replay: recording._id })).toMatchObject({
      cassette: 'replay',
      replayOf: recording._id,
    });
    const plain = await startEvaluationRun(w.deps, caller, ref);
    await w.runs.updateOne({ _id: plain._id }, { $set: { status: 'passed' } });
    expect(await replayOf(plain._id)).toBe('invalid_request');
    // Another agent's recording reads as none: 404 with nothing named.
    await w.runs.insertOne({ ...recording, _id: 'ev-other', agentId: 'agent-2', status: 'passed' });
    expect(await replayOf('ev-other')).toBe('not_found');
  });

  it('a queue that refuses the job leaves no run behind', async () => {
    const w = world();
    w.refuseQueue();
    await expect(startEvaluationRun(w.deps, caller, ref)).rejects.toMatchObject({ code: 'queue_unavailable' });
    expect(await w.runs.countDocuments({})).toBe(0);
  });

  it('runs every case to a verdict, and a second run of the job does nothing', async () => {
    const w = world();
    const run = await startEvaluationRun(w.deps, caller, ref);
    await runEvaluation(w.runner, run._id);
    const ended = (await w.runs.findOne({ _id: run._id }))!;
    expect(ended.status).toBe('failed');
    expect(ended.cases.map((c) => [c.id, c.passed])).toEqual([
      ['answer/one', true],
      ['answer/three', false],
      ['answer/two', true],
    ]);
    expect(ended).toMatchObject({ current: null, startedAt: expect.any(Date), endedAt: expect.any(Date) });
    await runEvaluation(w.runner, run._id);
    expect(w.opened).toEqual(['answer/one', 'answer/three', 'answer/two']);
  });

  it('a dispatcher stopped mid-case is replaced: that case fails interrupted, no case runs twice', async () => {
    const w = world();
    const run = await startEvaluationRun(w.deps, caller, ref);
    // The first dispatcher runs `one`, then stops while running `three` (its driver's open never returns).
    w.stopAt('answer/three');
    void runEvaluation(w.runner, run._id);
    for (let i = 0; i < 100 && (await w.runs.findOne({ _id: run._id }))?.current !== 'answer/three'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await w.runs.findOne({ _id: run._id })).toMatchObject({ status: 'running', current: 'answer/three' });
    // The job runs again on another dispatcher (the queue's stalled-job recovery).
    await runEvaluation(w.runner, run._id);
    const ended = (await w.runs.findOne({ _id: run._id }))!;
    expect(ended.cases.map((c) => [c.id, c.passed, c.steps[0]!.kind])).toEqual([
      ['answer/one', true, 'send'],
      ['answer/three', false, 'interrupted'],
      ['answer/two', true, 'send'],
    ]);
    expect(ended.cases[1]!.steps[0]!.error?.message).toContain('stopped before it ended; run the evaluation again');
    expect(w.opened).toEqual(['answer/one', 'answer/two']);
    expect(ended.status).toBe('failed');
  });

  it('stopped after a verdict was recorded but before the run ended, the next one only ends it', async () => {
    const w = world();
    const run = await startEvaluationRun(w.deps, caller, ref);
    await runEvaluation(w.runner, run._id);
    const ended = (await w.runs.findOne({ _id: run._id }))!;
    await w.runs.updateOne({ _id: run._id }, { $set: { status: 'running', endedAt: null } });
    await runEvaluation(w.runner, run._id);
    expect((await w.runs.findOne({ _id: run._id }))!.cases).toEqual(ended.cases);
    expect(w.opened).toHaveLength(3);
  });

  it('the sweep queues again a run whose job was lost, and ends error one whose job ended without it', async () => {
    const w = world();
    const lost = await startEvaluationRun(w.deps, caller, ref);
    const failed = await startEvaluationRun(w.deps, caller, ref);
    const fresh = { _id: 'ev-new' };
    const added: string[] = [];
    const jobs = {
      add: async (_queue: string, _name: string, _data: unknown, options?: { jobId?: string }) => {
        added.push(options!.jobId!);
        return options!.jobId!;
      },
      jobState: async (_queue: string, jobId: string) => (jobId === lost._id ? 'missing' as const : 'ended' as const),
    };
    expect(await sweepEvaluationRuns({ ...w.deps, jobs })).toEqual([]);
    w.later(61_000);
    await startEvaluationRun(w.deps, caller, ref).then((r) => (fresh._id = r._id));
    expect(await sweepEvaluationRuns({ ...w.deps, jobs })).toEqual([
      `[evaluation] ${lost._id}: its job was lost; queued again`,
      `[evaluation] ${failed._id}: its job ended without ending the run; ended error`,
    ]);
    expect(added).toEqual([lost._id]);
    expect(await w.runs.findOne({ _id: failed._id })).toMatchObject({
      status: 'error',
      error: { code: 'run_failed' },
    });
    expect(await w.runs.findOne({ _id: fresh._id })).toMatchObject({ status: 'queued' });
  });
});
