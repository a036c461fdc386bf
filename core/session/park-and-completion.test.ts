import { describe, expect, it } from 'vitest';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { completionFiring, fireCompletion } from './completion.ts';
import { sweepDueWaits } from './park-sweep.ts';
import { insertSession, insertTurn, sessionsOf, turnsOf } from './session-store.ts';
import { settleTurn } from './turn-settle.ts';
import type { WorkflowView } from './workflow-view.ts';

function world(at: string) {
  let n = 0;
  const clock = { now: () => new Date(at) };
  const deps = {
    docs: createMemoryDocumentStore(),
    objects: createMemoryObjectStore(),
    clock,
    ids: { newId: () => `id${(n += 1)}`, randomBytes: (k: number) => new Uint8Array(k), sha256Hex: async () => '' },
  };
  const queued: string[] = [];
  return {
    deps: {
      ...deps,
      enqueueTurn: async (id: string) => {
        queued.push(id);
      },
    },
    queued,
    clock,
  };
}
const fields = {
  orgId: 'o',
  agentId: 'a',
  environment: 'main',
  workflow: 'report',
  buildId: 'b',
  commitId: 'c',
  state: 'wait',
  variables: {},
  lockedVariables: [],
  trigger: 'manual',
  depth: 0,
  inheritedForbid: [],
};

describe('the park sweep', () => {
  it('delivers a wait whose time has passed, once, and leaves the others parked', async () => {
    const w = world('2026-11-24T10:00:00.000Z');
    const due = await insertSession(w.deps, fields);
    const later = await insertSession(w.deps, fields);
    const child = await insertSession(w.deps, { ...fields, depth: 1 });
    const park = (id: string, until: string) =>
      sessionsOf(w.deps).updateOne({ _id: id }, {
        $set: {
          status: 'awaiting_input',
          pending: { kind: 'input', id: `p-${id}`, reason: 'Wait for the nightly load.', until },
        },
      });
    await park(due._id, '2026-11-24T09:59:00.000Z');
    await park(later._id, '2026-11-24T11:00:00.000Z');
    await park(child._id, '2026-11-24T09:00:00.000Z');
    const turns = await sweepDueWaits(w.deps);
    expect(turns).toHaveLength(1);
    expect(w.queued).toEqual(turns);
    expect(await turnsOf(w.deps).findOne({ _id: turns[0] })).toMatchObject({
      sessionId: due._id,
      kind: 'delivery',
      status: 'queued',
      input: { message: expect.stringContaining('The wait ended at 2026-11-24T09:59:00.000Z') },
    });
    expect((await sessionsOf(w.deps).findOne({ _id: due._id }))?.status).toBe('running');
    expect((await sessionsOf(w.deps).findOne({ _id: later._id }))?.status).toBe('awaiting_input');
    expect(await sweepDueWaits(w.deps)).toEqual([]);
  });
});

describe('completion firings', () => {
  it(
    'carry the finished session and how its turn ended; a child, a parked ' + 'or a cancelled turn fires nothing',
    async () => {
      const w = world('2026-11-24T10:00:00.000Z');
      const session = await insertSession(w.deps, fields);
      const turn = await insertTurn(w.deps, session, { kind: 'prompt', input: {}, status: 'running' });
      await settleTurn(w.deps, turn, { status: 'failed', error: { code: 'raised', message: 'No data.' } });
      const firing = completionFiring(
        (await sessionsOf(w.deps).findOne({ _id: session._id }))!,
        (await turnsOf(w.deps).findOne({ _id: turn._id }))!,
      );
      expect(firing).toMatchObject({
        type: 'completion',
        workflow: 'report',
        sessionId: session._id,
        turnId: turn._id,
        status: 'failed',
        error: { code: 'raised' },
        state: 'wait',
      });
      const settled = (await turnsOf(w.deps).findOne({ _id: turn._id }))!;
      expect(completionFiring({ ...(await sessionsOf(w.deps).findOne({ _id: session._id }))!, depth: 1 }, settled))
        .toBeUndefined();
      expect(
        completionFiring((await sessionsOf(w.deps).findOne({ _id: session._id }))!, {
          ...settled,
          status: 'cancelled',
        }),
      ).toBeUndefined();
      expect(
        completionFiring((await sessionsOf(w.deps).findOne({ _id: session._id }))!, {
          ...settled,
          status: 'awaiting_input',
        }),
      ).toBeUndefined();

      const follow = { slug: 'follow-up', disabled: false } as WorkflowView;
      const opened = await fireCompletion(w.deps, firing!, {
        orgId: 'o',
        buildId: 'b2',
        commitId: 'c2',
        targets: [{
          view: follow,
          triggers: [{ id: 'after-report', state: 'start', workflow: 'report' }, {
            id: 'after-other',
            state: 'start',
            workflow: 'other',
          }],
        }],
      });
      expect(opened).toHaveLength(1);
      expect(await sessionsOf(w.deps).findOne({ _id: opened[0] })).toMatchObject({
        workflow: 'follow-up',
        state: 'start',
        trigger: 'after-report',
        buildId: 'b2',
        lockedVariables: ['trigger'],
        variables: { trigger: { sessionId: session._id, status: 'failed' } },
      });
      expect(w.queued).toHaveLength(1);
    },
  );
});

describe('turns whose dispatcher died (shared queue store)', () => {
  it(
    'end failed, interrupted by a platform restart, with their running child turns, once the heartbeat is stale; ' +
      'live ones are left',
    async () => {
      const { failStaleTurns } = await import('./stale-turns.ts');
      const { beatTurn, claimTurn } = await import('./session-store.ts');
      const w = world('2026-11-24T10:00:00.000Z');
      const root = await insertSession(w.deps, fields);
      const rootTurn = await insertTurn(w.deps, root, { kind: 'prompt', input: {} });
      await claimTurn(w.deps, rootTurn._id, 'dispatcher-a');
      const child = await insertSession(w.deps, { ...fields, depth: 1, parentId: root._id, rootId: root._id });
      const childTurn = await insertTurn(w.deps, child, { kind: 'prompt', input: {}, status: 'running' });
      const live = await insertSession(w.deps, fields);
      const liveTurn = await insertTurn(w.deps, live, { kind: 'prompt', input: {} });
      await claimTurn(w.deps, liveTurn._id, 'dispatcher-b');
      const later = { ...w.deps, clock: { now: () => new Date('2026-11-24T10:01:30.000Z') } };
      expect(await beatTurn(later, liveTurn._id, 'dispatcher-b')).toBe('running');
      expect(await beatTurn(later, liveTurn._id, 'someone-else')).toBe('running');
      expect(await failStaleTurns(later)).toEqual([rootTurn._id]);
      expect(await turnsOf(w.deps).findOne({ _id: rootTurn._id })).toMatchObject({
        status: 'failed',
        error: { code: 'interrupted', message: 'The turn was interrupted by a platform restart.' },
      });
      expect(await turnsOf(w.deps).findOne({ _id: childTurn._id })).toMatchObject({
        status: 'failed',
        error: { code: 'interrupted' },
      });
      expect((await sessionsOf(w.deps).findOne({ _id: root._id }))?.status).toBe('failed');
      expect((await turnsOf(w.deps).findOne({ _id: liveTurn._id }))?.status).toBe('running');
      expect(await failStaleTurns(later)).toEqual([]);
    },
  );
});

describe('firings', () => {
  it(
    "open a session at the trigger's state with the firing and its " + 'arguments locked, and queue a delivery turn',
    async () => {
      const { openFiredSession } = await import('./session-opening.ts');
      const w = world('2026-11-24T10:00:00.000Z');
      const target = {
        orgId: 'o',
        agentId: 'a',
        environment: 'main',
        buildId: 'b',
        commitId: 'c',
        workflow: 'intake',
        state: 'triage',
        trigger: { id: 'github', type: 'webhook' },
      };
      const { session, turnId } = await openFiredSession(w.deps, target, {
        payload: { method: 'POST', body: { action: 'opened' } },
        args: { priority: 2 },
        message: 'A webhook delivery.',
      });
      expect(session).toMatchObject({
        workflow: 'intake',
        state: 'triage',
        trigger: 'github',
        lockedVariables: ['priority', 'trigger'],
        variables: {
          priority: 2,
          trigger: { id: 'github', type: 'webhook', method: 'POST', body: { action: 'opened' } },
        },
      });
      expect(await turnsOf(w.deps).findOne({ _id: turnId })).toMatchObject({
        kind: 'delivery',
        status: 'queued',
        input: { message: 'A webhook delivery.' },
      });
      expect(w.queued).toEqual([turnId]);
    },
  );

  it('claim a delivery id once, also under 25 concurrent duplicates', async () => {
    const { claimDelivery } = await import('./firings.ts');
    const w = world('2026-11-24T10:00:00.000Z');
    const claims = await Promise.all(Array.from({ length: 25 }, () => claimDelivery(w.deps, 'conn1', 'd-42')));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await claimDelivery(w.deps, 'conn1', 'd-42')).toBe(false);
    expect(await claimDelivery(w.deps, 'conn2', 'd-42')).toBe(true);
  });

  it('take a delivery again once its claim is released (its firing could not be queued)', async () => {
    const { claimDelivery, releaseDelivery } = await import('./firings.ts');
    const w = world('2026-11-24T10:00:00.000Z');
    expect(await claimDelivery(w.deps, 'conn1', 'd-7')).toBe(true);
    await releaseDelivery(w.deps, 'conn1', 'd-7');
    expect(await claimDelivery(w.deps, 'conn1', 'd-7')).toBe(true);
    expect(await claimDelivery(w.deps, 'conn1', 'd-7')).toBe(false);
  });
});
