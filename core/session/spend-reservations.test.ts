/**
 * Spend reservations over the in-memory document store fake: concurrent reservations never hold more than a cap,
 * settling moves the reserved amount to the reported cost once, a release gives it back, a refusal on one counter
 * leaves nothing held on the others, an expired reservation (a crashed process) is swept by the next reservation,
 * ancestors' caps bound a child's call, and a capped call on a model without prices is refused.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { sessionCollections, type SessionRecord } from './model.ts';
import { addSpend, type SpendScope, spendStatus, writeSpendCap } from './spend.ts';
import { releaseSpend, RESERVATION_GRACE_MS, reserveSpend, settleSpend, spendScopes } from './spend-reservations.ts';

function setup() {
  let now = new Date('2026-11-24T09:00:00Z');
  let n = 0;
  const deps = { docs: createMemoryDocumentStore(), clock: { now: () => now }, ids: { newId: () => `r${(n += 1)}` } };
  return {
    deps,
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  };
}
const scope: SpendScope = { orgId: 'o1', agentId: 'a1', environment: 'main', workflow: 'analyst' };
const day = (docs: ReturnType<typeof setup>['deps']) => spendStatus(docs, scope).then((s) => s[0]);
type Counter = { _id: string; committedNano: number; reservedNano: number; reservations?: object };
const counterOf = async (t: ReturnType<typeof setup>, workflow = 'analyst') =>
  t.deps.docs.collection<Counter>(sessionCollections.spendTotals)
    .findOne({ _id: `a1:main:${workflow}:day:2026-11-24` });
const reasons = (tries: PromiseSettledResult<unknown>[]) =>
  tries.flatMap((r) => (r.status === 'rejected' ? [r.reason as { code: string; message: string }] : []));
const ttl = { ttlMs: 60_000, priced: true };

describe('spend reservations', () => {
  it('lets concurrent reservations hold at most the cap between them', async () => {
    const t = setup();
    await writeSpendCap(t.deps, scope, { period: 'day', limitUsd: 1, by: 'sub-ada' });
    const tries = await Promise.allSettled(Array.from({ length: 12 }, () => reserveSpend(t.deps, [scope], 0.155, ttl)));
    const held = tries.filter((r) => r.status === 'fulfilled');
    expect(held).toHaveLength(6);
    expect(reasons(tries).map((r) => r.code)).toEqual(Array(6).fill('spend_cap_reached'));
    expect(await counterOf(t)).toMatchObject({ committedNano: 930_000_000, reservedNano: 930_000_000 });
    expect(reasons(tries)[0].message).toContain('0.0700 USD left (0.0000 USD spent, 0.9300 USD held');
  });

  it('settles to the reported cost once, and a release gives the amount back', async () => {
    const t = setup();
    await writeSpendCap(t.deps, scope, { period: 'day', limitUsd: 1, by: 'sub-ada' });
    const first = await reserveSpend(t.deps, [scope], 0.5, ttl);
    const second = await reserveSpend(t.deps, [scope], 0.5, ttl);
    await expect(reserveSpend(t.deps, [scope], 0.01, ttl))
      .rejects.toMatchObject({ code: 'spend_cap_reached', status: 429 });
    await settleSpend(t.deps, first, 0.2);
    await settleSpend(t.deps, first, 0.2); // a second settle adds the cost again but gives nothing back twice
    await releaseSpend(t.deps, second);
    expect(await counterOf(t)).toMatchObject({ committedNano: 400_000_000, reservedNano: 0, reservations: {} });
    expect((await day(t.deps)).spentUsd).toBeCloseTo(0.4, 12);
    // Every period counts the cost, capped or not.
    expect((await spendStatus(t.deps, scope)).map((s) => s.spentUsd.toFixed(2))).toEqual(['0.40', '0.40', '0.40']);
    await reserveSpend(t.deps, [scope], 0.6, ttl);
    await expect(reserveSpend(t.deps, [scope], 0.001, ttl)).rejects.toMatchObject({ code: 'spend_cap_reached' });
  });

  it('holds nothing when a later cap refuses', async () => {
    const t = setup();
    await writeSpendCap(t.deps, scope, { period: 'day', limitUsd: 10, by: 'sub-ada' });
    await writeSpendCap(t.deps, scope, { period: 'month', limitUsd: 0.1, by: 'sub-ada' });
    await expect(reserveSpend(t.deps, [scope], 0.2, ttl))
      .rejects.toMatchObject({ code: 'spend_cap_reached', message: expect.stringContaining('month (UTC)') });
    expect(await counterOf(t)).toMatchObject({ committedNano: 0, reservedNano: 0 });
  });

  it('counts spend made before a cap existed and before reservations (spent only)', async () => {
    const t = setup();
    await addSpend(t.deps, scope, 0.95);
    await writeSpendCap(t.deps, scope, { period: 'day', limitUsd: 1, by: 'sub-ada' });
    await expect(reserveSpend(t.deps, [scope], 0.1, ttl)).rejects.toMatchObject({ code: 'spend_cap_reached' });
    await reserveSpend(t.deps, [scope], 0.05, ttl);
  });

  it("charges a dead process's expired reservation at its upper bound at the next reservation, once", async () => {
    const t = setup();
    await writeSpendCap(t.deps, scope, { period: 'day', limitUsd: 1, by: 'sub-ada' });
    const lost = await reserveSpend(t.deps, [scope], 0.9, { ttlMs: 30_000, priced: true });
    await expect(reserveSpend(t.deps, [scope], 0.2, ttl)).rejects.toMatchObject({ code: 'spend_cap_reached' });
    t.advance(30_000);
    // The dead process may have been billed: the sweep charges the 0.9 it held, so 0.2 more passes the cap.
    await expect(reserveSpend(t.deps, [scope], 0.2, ttl)).rejects.toMatchObject({ code: 'spend_cap_reached' });
    expect((await spendStatus(t.deps, scope))[0].spentUsd).toBeCloseTo(0.9, 9);
    const next = await reserveSpend(t.deps, [scope], 0.05, ttl);
    const held = { [next.id]: expect.any(Object) };
    expect(await counterOf(t)).toMatchObject({
      committedNano: 950_000_000,
      reservedNano: 50_000_000,
      reservations: held,
    });
    // Were the swept call to report after all, only what its cost exceeds the charged bound is added.
    await settleSpend(t.deps, lost, 0.3);
    expect(await counterOf(t)).toMatchObject({ committedNano: 950_000_000, reservedNano: 50_000_000 });
    expect(RESERVATION_GRACE_MS).toBeGreaterThan(0);
  });

  it("reserves on every ancestor's caps and counts the spend there too", async () => {
    const t = setup();
    const sessions = t.deps.docs.collection<SessionRecord>(sessionCollections.sessions);
    const record = (id: string, workflow: string, parentId?: string) =>
      ({
        _id: id,
        orgId: 'o1',
        agentId: 'a1',
        environment: 'main',
        workflow,
        ...(parentId ? { parentId } : {}),
      }) as SessionRecord;
    await sessions.insertOne(record('s1', 'lead'));
    await sessions.insertOne(record('s2', 'helper', 's1'));
    await sessions.insertOne(record('s3', 'lookup', 's2'));
    const scopes = await spendScopes(t.deps, record('s3', 'lookup', 's2'));
    expect(scopes.map((s) => s.workflow)).toEqual(['lookup', 'helper', 'lead']);
    await writeSpendCap(t.deps, { ...scope, workflow: 'lead' }, { period: 'day', limitUsd: 0.5, by: 'sub-ada' });
    const held = await reserveSpend(t.deps, scopes, 0.3, ttl);
    await expect(reserveSpend(t.deps, scopes, 0.3, ttl))
      .rejects.toMatchObject({ code: 'spend_cap_reached', message: expect.stringContaining('Workflow "lead"') });
    await settleSpend(t.deps, held, 0.25);
    const dayOf = (workflow: string) => spendStatus(t.deps, { ...scope, workflow }).then((s) => s[0].spentUsd);
    const spent = await Promise.all(['lookup', 'helper', 'lead'].map(dayOf));
    expect(spent).toEqual([0.25, 0.25, 0.25]);
    expect(await counterOf(t, 'lead')).toMatchObject({ committedNano: 250_000_000, reservedNano: 0 });
  });

  it('refuses a capped call on a model without prices, and lets an uncapped one run', async () => {
    const t = setup();
    await expect(reserveSpend(t.deps, [scope], 0, { ttlMs: 1000, priced: false }))
      .resolves.toMatchObject({ held: [], amountNano: 0 });
    await writeSpendCap(t.deps, scope, { period: 'week', limitUsd: 5, by: 'sub-ada' });
    await expect(reserveSpend(t.deps, [scope], 0, { ttlMs: 1000, priced: false, model: 'local-llama' }))
      .rejects.toMatchObject({
        code: 'spend_cap_unpriced',
        status: 422,
        message: expect.stringContaining('model "local-llama" has no prices'),
      });
  });
});
