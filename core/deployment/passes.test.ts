/**
 * Release passes: listing shows each environment's last reconciliation and requests nothing; applying requests a
 * `release` reconciliation of each, which tries every deployment again (also those whose retries are exhausted).
 * Source: spec/platform-service.md § Trigger deployment (operator tool for the passes).
 */
import { describe, expect, it } from 'vitest';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import {
  applyDeployments,
  listDeployments,
  passLine,
  type ReconciliationDeps,
  releasePasses,
  requestReconciliation,
  runReconciliation,
} from './index.ts';

describe('release passes', () => {
  it('are listed without a request, and applied as resetting requests of every environment', async () => {
    let n = 0;
    const jobs: string[] = [];
    const deps: ReconciliationDeps = {
      docs: createMemoryDocumentStore(),
      clock: { now: () => new Date(Date.UTC(2026, 10, 24, 9)) },
      ids: { newId: () => `id${(n += 1)}`, randomBytes: (k) => new Uint8Array(k), sha256Hex: async () => '' },
      enqueue: async (env, id) => {
        jobs.push(`${env.environment}/${id}`);
      },
    };
    const main = { agentId: 'a1', environment: 'main' };
    await requestReconciliation(deps, main, 'publish');
    await runReconciliation(deps, main, async () => ({ serving: 1, errors: 0 }));
    jobs.length = 0;
    const envs = [{ ...main, published: true }, { agentId: 'a1', environment: 'draft', published: false }];

    const listed = await releasePasses(deps, envs, false);
    expect(jobs).toEqual([]);
    expect(listed.map(passLine)).toEqual([
      'a1/main: published; last reconciliation done (publish) requested 2026-11-24T09:00:00.000Z',
      'a1/draft: nothing published; never reconciled',
    ]);

    // An exhausted deployment is tried again by the pass.
    await applyDeployments(deps, main, {
      buildId: 'b1',
      desired: [{ workflow: 'w', trigger: 't', type: 'schedule', connection: null, problem: 'bad' }],
      reset: true,
    });
    const applied = await releasePasses(deps, envs, true);
    expect(applied.map((p) => p.requested?.reason)).toEqual(['release', 'release']);
    expect(jobs).toEqual(['main/id2', 'draft/id3']);
    const resets: boolean[] = [];
    await runReconciliation(deps, main, async (_e, reset) => {
      resets.push(reset);
      return { serving: 0, errors: 1 };
    });
    expect(resets).toEqual([true]);
    expect((await listDeployments(deps, main))[0].failuresInRow).toBe(1);
  });
});
