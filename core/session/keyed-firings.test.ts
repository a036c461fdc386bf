/**
 * Keyed firings over the embedded SQLite document store (two connections to one file, as two dispatchers have):
 * one open session per key, delivery to a session awaiting input, busy while it runs or awaits a decision, a new
 * session once it ended, a claim whose opener stopped taken over, and 20 concurrent firings opening one session.
 * Source: docs/agent-format.md § Triggers (`session`); docs/decisions.md D8 (session keys).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDocumentStore } from '../adapters/sqlite/index.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import type { FiringTarget } from './firings.ts';
import { openFiredSession } from './session-opening.ts';
import { claimIdOf, SESSION_KEY_CLAIM_STALE_MS, sessionKeyClaimsCollection } from './session-key-claims.ts';
import { ensureSessionIndexes } from './session-indexes.ts';
import { sessionsOf, turnsOf } from './session-store.ts';

let dir: string;
const stores: DocumentStore[] = [];
let now: Date;

async function world() {
  const path = join(dir, 'docdb.sqlite');
  const [one, two] = [await openSqliteDocumentStore({ path }), await openSqliteDocumentStore({ path })];
  stores.push(one, two);
  await ensureSessionIndexes(one);
  let n = 0;
  const queued: string[] = [];
  const base = {
    objects: createMemoryObjectStore(),
    clock: { now: () => now },
    ids: { newId: () => `id${(n += 1)}`, randomBytes: (k: number) => new Uint8Array(k), sha256Hex: async () => '' },
    enqueueTurn: async (id: string) => {
      queued.push(id);
    },
  };
  return { deps: { ...base, docs: one }, other: { ...base, docs: two }, queued };
}

const target: FiringTarget = {
  orgId: 'o1',
  agentId: 'a1',
  environment: 'main',
  buildId: 'b1',
  commitId: 'c1',
  workflow: 'intake',
  state: 'triage',
  trigger: { id: 'github', type: 'webhook' },
};
const firing = (ticket: string, deliveryId: string) => ({
  payload: { deliveryId, body: { ticket } },
  message: `Delivery ${deliveryId}.`,
  sessionKey: `ticket-${ticket}`,
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-keys-'));
  now = new Date('2026-11-24T10:00:00.000Z');
});

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('keyed firings', () => {
  it(
    'open a session holding the key; a second firing is busy while it runs and joins it as a delivery turn once ' +
      'it awaits input',
    async () => {
      const w = await world();
      const first = await openFiredSession(w.deps, target, firing('T-1', 'd-1'));
      expect(first.outcome).toBe('opened');
      expect(first.session).toMatchObject({
        sessionKey: 'ticket-T-1',
        status: 'running',
        variables: { trigger: { id: 'github', deliveryId: 'd-1' } },
      });

      await expect(openFiredSession(w.other, target, firing('T-1', 'd-2'))).rejects.toMatchObject({
        code: 'session_busy',
        status: 409,
        message: expect.stringMatching(/trigger "github" .* is running; try it again/),
      });
      await sessionsOf(w.deps).updateOne({ _id: first.session._id }, { $set: { status: 'awaiting_decision' } });
      await expect(openFiredSession(w.deps, target, firing('T-1', 'd-2'))).rejects.toMatchObject({
        code: 'session_busy',
        message: expect.stringMatching(/awaiting decision/),
      });

      await sessionsOf(w.deps).updateOne({ _id: first.session._id }, {
        $set: { status: 'awaiting_input', pending: { kind: 'input', id: 'p1', reason: 'The assistant replied.' } },
      });
      const second = await openFiredSession(w.other, target, firing('T-1', 'd-2'));
      expect(second).toMatchObject({ outcome: 'delivered', session: { _id: first.session._id, status: 'running' } });
      const turn = await turnsOf(w.deps).findOne({ _id: second.turnId });
      expect(turn).toMatchObject({ sessionId: first.session._id, kind: 'delivery', status: 'queued' });
      expect(turn?.input.message).toMatch(
        new RegExp(
          String.raw`joined this session by its session key "ticket-T-1"\. The variable "trigger" ` +
            String.raw`still holds the firing that opened the session; this firing ` +
            String.raw`is:\n\{"id":"github","type":"webhook","deliveryId":"d-2","body":\{"ticket":"T-1"\}\}$`,
        ),
      );
      const session = await sessionsOf(w.deps).findOne({ _id: first.session._id });
      expect(session).toMatchObject({ status: 'running', variables: { trigger: { deliveryId: 'd-1' } } });
      expect(w.queued).toEqual([first.turnId, second.turnId]);

      // Another key opens its own session; a firing without a key always opens a new one.
      expect((await openFiredSession(w.deps, target, firing('T-2', 'd-3'))).outcome).toBe('opened');
      expect((await openFiredSession(w.deps, target, { ...firing('T-1', 'd-4'), sessionKey: undefined })).outcome).toBe(
        'opened',
      );
      expect(await sessionsOf(w.deps).countDocuments({ sessionKey: 'ticket-T-1' })).toBe(1);
      expect(await sessionsOf(w.deps).countDocuments({})).toBe(3);
    },
  );

  it('scope a key to its agent, environment, workflow and trigger', async () => {
    const w = await world();
    await openFiredSession(w.deps, target, firing('T-1', 'd-1'));
    for (
      const other of [{ ...target, environment: 'staging' }, { ...target, workflow: 'other' }, {
        ...target,
        trigger: { id: 'second', type: 'webhook' },
      }, { ...target, agentId: 'a2' }]
    ) {
      expect((await openFiredSession(w.deps, other, firing('T-1', 'd-1'))).outcome).toBe('opened');
    }
    expect(await sessionsOf(w.deps).countDocuments({ sessionKey: 'ticket-T-1' })).toBe(5);
  });

  it('open a new session with the key once the keyed one ended (succeeded, failed or cancelled)', async () => {
    const w = await world();
    const first = await openFiredSession(w.deps, target, firing('T-1', 'd-1'));
    await sessionsOf(w.deps).updateOne({ _id: first.session._id }, { $set: { status: 'succeeded' } });
    const next = await openFiredSession(w.deps, target, firing('T-1', 'd-2'));
    expect(next.outcome).toBe('opened');
    expect(next.session._id).not.toBe(first.session._id);
    await sessionsOf(w.deps).updateOne({ _id: next.session._id }, { $set: { status: 'cancelled' } });
    expect((await openFiredSession(w.other, target, firing('T-1', 'd-3'))).outcome).toBe('opened');
    expect(await sessionsOf(w.deps).countDocuments({ sessionKey: 'ticket-T-1' })).toBe(3);
  });

  it('take over a claim whose opener stopped before inserting its session, once it is stale', async () => {
    const w = await world();
    const claims = w.deps.docs.collection(sessionKeyClaimsCollection);
    const scope = { agentId: 'a1', environment: 'main', workflow: 'intake', trigger: 'github' };
    await claims.insertOne(
      {
        _id: claimIdOf(scope, 'ticket-T-1'),
        schemaVersion: 1,
        ...scope,
        key: 'ticket-T-1',
        sessionId: null,
        claimedAt: now,
      } as never,
    );
    await expect(openFiredSession(w.deps, target, firing('T-1', 'd-1'))).rejects.toMatchObject({
      code: 'session_busy',
      message: expect.stringMatching(/being opened/),
    });
    now = new Date(now.getTime() + SESSION_KEY_CLAIM_STALE_MS + 1);
    const opened = await openFiredSession(w.deps, target, firing('T-1', 'd-1'));
    expect(opened.outcome).toBe('opened');
    expect(await claims.findOne({ _id: claimIdOf(scope, 'ticket-T-1') })).toMatchObject({
      sessionId: opened.session._id,
    });
  });

  it('refuse a blank key or one over 256 characters without opening anything', async () => {
    const w = await world();
    await expect(openFiredSession(w.deps, target, { ...firing('x', 'd'), sessionKey: ' ' })).rejects.toMatchObject({
      code: 'invalid_session_key',
    });
    await expect(openFiredSession(w.deps, target, { ...firing('x', 'd'), sessionKey: 'k'.repeat(257) })).rejects
      .toMatchObject({
        code: 'invalid_session_key',
        message: expect.stringMatching(/at most 256 characters \(this one has 257\)/),
      });
    expect(await sessionsOf(w.deps).countDocuments({})).toBe(0);
  });

  it(
    'open one session for 20 concurrent firings with one key over two ' + 'store connections; the others are busy',
    async () => {
      const w = await world();
      const results = await Promise.allSettled(
        Array.from(
          { length: 20 },
          (_, i) => openFiredSession(i % 2 === 0 ? w.deps : w.other, target, firing('T-9', `d-${i}`)),
        ),
      );
      const opened = results.filter((r) => r.status === 'fulfilled');
      expect(opened).toHaveLength(1);
      expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code))
        .toEqual(
          Array(19).fill('session_busy'),
        );
      expect(await sessionsOf(w.deps).countDocuments({})).toBe(1);
      expect(await turnsOf(w.deps).countDocuments({})).toBe(1);
    },
  );

  it('deliver 20 concurrent firings to a session awaiting input once: one joins, the others are busy', async () => {
    const w = await world();
    const first = await openFiredSession(w.deps, target, firing('T-5', 'd-0'));
    await sessionsOf(w.deps).updateOne({ _id: first.session._id }, { $set: { status: 'awaiting_input' } });
    const results = await Promise.allSettled(
      Array.from(
        { length: 20 },
        (_, i) => openFiredSession(i % 2 === 0 ? w.deps : w.other, target, firing('T-5', `d-${i + 1}`)),
      ),
    );
    expect(
      results.filter((r) => r.status === 'fulfilled').map((r) =>
        (r as PromiseFulfilledResult<{ outcome: string }>).value.outcome
      ),
    ).toEqual(['delivered']);
    expect(await sessionsOf(w.deps).countDocuments({})).toBe(1);
    expect(await turnsOf(w.deps).countDocuments({ sessionId: first.session._id })).toBe(2);
  });
});
