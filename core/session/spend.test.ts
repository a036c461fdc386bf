/**
 * Spend so far is reported for every period, capped or not (the web app's spend column), and only a capped
 * period refuses a turn once its spend reaches the cap. Over the in-memory document store fake.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { addSpend, checkSpendCaps, spendStatus, writeSpendCap } from './spend.ts';

describe('spend status', () => {
  it('lists day, week and month with the spend of each current period; caps where set, null elsewhere', async () => {
    let now = new Date('2026-11-24T09:00:00Z');
    const deps = { docs: createMemoryDocumentStore(), clock: { now: () => now } };
    const scope = { orgId: 'o1', agentId: 'a1', environment: 'main', workflow: 'analyst' };
    await addSpend(deps, scope, 0.25);
    await writeSpendCap(deps, scope, { period: 'week', limitUsd: 1, by: 'sub-ada' });
    expect(
      (await spendStatus(deps, scope)).map((
        s,
      ) => [s.period, s.limitUsd, s.spentUsd, s.periodStart.toISOString().slice(0, 10)]),
    ).toEqual([
      ['day', null, 0.25, '2026-11-24'],
      ['week', 1, 0.25, '2026-11-23'],
      ['month', null, 0.25, '2026-11-01'],
    ]);
    await checkSpendCaps(deps, scope);
    now = new Date('2026-11-25T09:00:00Z');
    await addSpend(deps, scope, 0.75);
    expect((await spendStatus(deps, scope)).map((s) => s.spentUsd)).toEqual([0.75, 1, 1]);
    await expect(checkSpendCaps(deps, scope)).rejects.toMatchObject({ code: 'spend_cap_reached', status: 429 });
    await writeSpendCap(deps, scope, { period: 'week', limitUsd: null, by: 'sub-ada' });
    await checkSpendCaps(deps, scope);
  });
});
