/**
 * Reconciliation on the in-memory document store with a fake clock: records of desired deployments are written
 * (serving, or error with the retry plan) and records of triggers no longer desired removed; a due retry retries
 * only the deployments the sweep marked, and after five failed retries a deployment stays in error until a
 * resetting request (publish, credential change, Retry now); requests merge while queued or running; the sweep
 * queues again a request lost for 10 minutes; the connection row status follows the records.
 * Source: spec/platform-service.md § Trigger deployment, § Incoming connection (row status), § Limits.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import {
  applyDeployments,
  connectionStatuses,
  type DesiredDeployment,
  type EnvironmentRef,
  listDeployments,
  type ReconciliationDeps,
  reconciliationOf,
  requestReconciliation,
  runReconciliation,
  sweepDeployments,
} from './index.ts';

const env: EnvironmentRef = { agentId: 'agent1', environment: 'main' };
let now: number;
let deps: ReconciliationDeps;
let jobs: string[];
let n: number;

beforeEach(() => {
  now = Date.UTC(2026, 10, 24, 9, 0, 0);
  jobs = [];
  n = 0;
  deps = {
    docs: createMemoryDocumentStore(),
    clock: { now: () => new Date(now) },
    ids: { newId: () => `id${(n += 1)}`, randomBytes: (k) => new Uint8Array(k), sha256Hex: async () => '' },
    enqueue: async (e, requestId) => {
      jobs.push(`${e.agentId}/${e.environment}/${requestId}`);
    },
  };
});

const serving = (workflow: string, trigger: string, connection: string | null = null): DesiredDeployment => ({
  workflow,
  trigger,
  type: 'webhook',
  connection,
  problem: null,
});
const failing = (workflow: string, trigger: string, connection: string | null = null): DesiredDeployment => ({
  workflow,
  trigger,
  type: 'webhook',
  connection,
  problem: `${trigger} is broken`,
});
const one = async (trigger: string) => (await listDeployments(deps, env)).find((d) => d.trigger === trigger)!;

describe('applying deployments', () => {
  it('writes serving and failing deployments and removes those no longer desired', async () => {
    await applyDeployments(deps, env, {
      buildId: 'b1',
      desired: [serving('a', 'x', 'inbox'), failing('b', 'y', 'inbox'), serving('c', 'z')],
      reset: true,
    });
    const counts = await applyDeployments(deps, env, {
      buildId: 'b2',
      desired: [serving('a', 'x', 'inbox'), failing('b', 'y', 'inbox')],
      reset: true,
    });
    expect(counts).toEqual({ serving: 1, errors: 1, removed: 1 });
    expect(await listDeployments(deps, env)).toMatchObject([
      {
        _id: 'agent1:main:a:x',
        status: 'serving',
        message: null,
        connection: 'inbox',
        buildId: 'b2',
        failuresInRow: 0,
        nextRetryAt: null,
        retriesExhausted: false,
      },
      {
        _id: 'agent1:main:b:y',
        status: 'error',
        message: 'y is broken',
        failuresInRow: 1,
        nextRetryAt: new Date(now + 30_000),
        retriesExhausted: false,
      },
    ]);
    expect((await applyDeployments(deps, env, { buildId: null, desired: [], reset: true })).removed).toBe(2);
  });

  it(
    'retries a deployment in error when due, doubling the delay, and stops ' +
      'after five failed retries until a reset',
    async () => {
      const failingPlan = { buildId: 'b1', desired: [failing('b', 'y')] };
      const reconcile = async (_e: EnvironmentRef, reset: boolean) =>
        applyDeployments(deps, env, { ...failingPlan, reset });
      await requestReconciliation(deps, env, 'publish');
      await runReconciliation(deps, env, reconcile);
      const delays: number[] = [];
      for (let retry = 1; retry <= 5; retry += 1) {
        const before = await one('y');
        expect((await sweepDeployments(deps)).dueRetries).toEqual([]); // not yet due
        delays.push(before.nextRetryAt!.getTime() - now);
        now = before.nextRetryAt!.getTime();
        expect((await sweepDeployments(deps)).dueRetries).toEqual([env]);
        expect((await sweepDeployments(deps)).dueRetries).toEqual([]); // claimed once
        expect(await reconciliationOf(deps, env)).toMatchObject({
          status: 'queued',
          reason: 'due_retry',
          reset: false,
        });
        await runReconciliation(deps, env, reconcile);
        expect((await one('y')).failuresInRow).toBe(retry + 1);
      }
      expect(delays).toEqual([30_000, 60_000, 120_000, 240_000, 480_000]);
      expect(await one('y')).toMatchObject({
        status: 'error',
        retriesExhausted: true,
        nextRetryAt: null,
        failuresInRow: 6,
      });
      now += 3_600_000;
      expect((await sweepDeployments(deps)).dueRetries).toEqual([]);
      await requestReconciliation(deps, env, 'retry_now');
      await runReconciliation(deps, env, reconcile);
      expect(await one('y')).toMatchObject({
        status: 'error',
        retriesExhausted: false,
        failuresInRow: 1,
        nextRetryAt: new Date(now + 30_000),
      });
    },
  );

  it(
    'leaves a deployment in error that is not due alone in a due-retry ' + 'pass, and serves it after a reset',
    async () => {
      await applyDeployments(deps, env, { buildId: 'b1', desired: [failing('b', 'y')], reset: true });
      await applyDeployments(deps, env, { buildId: 'b1', desired: [serving('b', 'y')], reset: false });
      expect((await one('y')).status).toBe('error');
      await applyDeployments(deps, env, { buildId: 'b1', desired: [serving('b', 'y')], reset: true });
      expect((await one('y')).status).toBe('serving');
    },
  );
});

describe('reconciliation requests', () => {
  it('queue a job per request, merge requests made while queued, and end done with the counts', async () => {
    await requestReconciliation(deps, env, 'publish');
    await requestReconciliation(deps, env, 'due_retry');
    expect(jobs).toEqual(['agent1/main/id1', 'agent1/main/id2']);
    expect(await reconciliationOf(deps, env)).toMatchObject({
      status: 'queued',
      reason: 'due_retry',
      reset: true,
      requestId: 'id2',
    });
    const resets: boolean[] = [];
    const ended = await runReconciliation(deps, env, async (_e, reset) => {
      resets.push(reset);
      return { serving: 2, errors: 1 };
    });
    expect(ended).toMatchObject({ status: 'done', serving: 2, errors: 1, reset: false });
    expect(resets).toEqual([true]);
    // The second job finds nothing queued.
    expect(await runReconciliation(deps, env, async () => ({ serving: 0, errors: 0 }))).toBeUndefined();
  });

  it('run again when a request comes in while running (no job for it: the run goes round)', async () => {
    await requestReconciliation(deps, env, 'due_retry');
    const reasons: boolean[] = [];
    await runReconciliation(deps, env, async (_e, reset) => {
      reasons.push(reset);
      if (reasons.length === 1) await requestReconciliation(deps, env, 'credential');
      return { serving: 0, errors: 0 };
    });
    expect(reasons).toEqual([false, true]);
    expect(jobs).toHaveLength(1);
    expect((await reconciliationOf(deps, env))?.status).toBe('done');
  });

  it('are queued again by the sweep once lost for 10 minutes, queued or running', async () => {
    await requestReconciliation(deps, env, 'publish');
    now += 9 * 60_000;
    expect((await sweepDeployments(deps)).requeued).toEqual([]);
    now += 60_000;
    expect((await sweepDeployments(deps)).requeued).toEqual([env]);
    expect(jobs).toEqual(['agent1/main/id1', 'agent1/main/id2']);
    expect((await sweepDeployments(deps)).requeued).toEqual([]);
    await expect(runReconciliation(deps, env, async () => {
      throw new Error('store away');
    })).rejects.toThrow('store away');
    expect((await reconciliationOf(deps, env))?.status).toBe('queued');
  });
});

describe('connection row status', () => {
  it('is Error with the message when a deployment naming it fails, Serving with a count, else Not used', () => {
    const statuses = connectionStatuses([
      { connection: 'inbox', status: 'error', message: 'two triggers', workflow: 'b', trigger: 'y' },
      { connection: 'inbox', status: 'serving', message: null, workflow: 'a', trigger: 'x' },
      { connection: 'tools', status: 'serving', message: null, workflow: 'a', trigger: 't1' },
      { connection: 'tools', status: 'serving', message: null, workflow: 'b', trigger: 't2' },
      { connection: null, status: 'error', message: 'cron', workflow: 'c', trigger: 'tick' },
    ]);
    expect(statuses.get('inbox')).toEqual({ status: 'error', servingCount: 1, statusMessage: 'two triggers' });
    expect(statuses.get('tools')).toEqual({ status: 'serving', servingCount: 2, statusMessage: null });
    expect(statuses.has('desk')).toBe(false);
  });
});
