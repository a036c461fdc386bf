/**
 * The `deliver` step of the session driver (./session-driver.ts) on the in-memory stores: the trigger it fires (the
 * case's, else the workflow's first webhook or callback trigger; another kind refused, saying so), the payload (a
 * webhook's defaults under the step's mapping, a delivery id naming run, case and count), and a later delivery to a
 * session awaiting input queued as its next `delivery` turn carrying the firing (refused when the session does not
 * await input). Source: issue "Evaluations" § Runs; docs/agent-format.md § Tests (`deliver`).
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../adapters/runtime/system-clock.ts';
import { insertSession, sessionsOf, turnsOf } from '../session/session-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import type { EvaluationCase } from './cases.ts';
import { type CaseTrigger, deliveredTrigger, deliveryPayload, sessionDriver } from './session-driver.ts';

const triggers: CaseTrigger[] = [
  { id: 'ask', type: 'chat', state: 'answer' },
  { id: 'crm', type: 'webhook', state: 'answer' },
  { id: 'done', type: 'callback', state: 'answer' },
];
const caseOf = (trigger?: string): EvaluationCase => ({
  id: 'answer/d',
  workflow: 'answer',
  stem: 'd',
  case: { title: 'd', ...(trigger ? { trigger } : {}), steps: [{ deliver: {} }] },
} as EvaluationCase);

describe('deliver steps', () => {
  it("fire the case's trigger, else the first webhook or callback trigger; another kind is refused", () => {
    expect(deliveredTrigger(triggers, caseOf()).id).toBe('crm');
    expect(deliveredTrigger(triggers, caseOf('done')).id).toBe('done');
    expect(() => deliveredTrigger(triggers, caseOf('ask'))).toThrow(
      'deliver fires a webhook or callback trigger, but its trigger "ask" is a chat trigger; name one with the ' +
        "case's trigger key",
    );
    expect(() => deliveredTrigger(triggers.slice(0, 1), caseOf())).toThrow('workflow "answer" declares none');
    expect(() => deliveredTrigger(triggers, caseOf('nope'))).toThrow('workflow "answer" declares no trigger "nope"');
  });

  it("carry a webhook's defaults under the mapping, and a delivery id naming run, case and count", () => {
    const at = { runId: 'ev-1', caseId: 'answer/d', n: 2 };
    expect(deliveryPayload(triggers[1]!, { body: { id: 7 }, method: 'PUT' }, at)).toEqual({
      deliveryId: 'ev-1/answer/d/2',
      method: 'PUT',
      contentType: 'application/json',
      userAgent: 'cairn-evaluation',
      requestId: null,
      query: {},
      body: { id: 7 },
    });
    expect(deliveryPayload(triggers[2]!, { event: 'ready' }, at)).toEqual({
      deliveryId: 'ev-1/answer/d/2',
      event: 'ready',
    });
  });

  it('deliver a later firing to a session awaiting input as its next turn, and refuse one that does not', async () => {
    let n = 0;
    const ids = {
      newId: () => `id${(n += 1)}`,
      randomBytes: (k: number) => new Uint8Array(k),
      sha256Hex: async () => '0',
    };
    const store = { docs: createMemoryDocumentStore(), objects: createMemoryObjectStore(), clock: systemClock, ids };
    const queued: string[] = [];
    const run = { _id: 'ev-1', orgId: 'o1', agentId: 'a1', environment: 'main', buildId: 'b1', commitId: 'c1' };
    const driver = sessionDriver(
      {
        ...store,
        enqueueTurn: async (turnId) => void queued.push(turnId),
        workflowOf: async () => {
          throw new Error('not read by a later delivery');
        },
        triggersOf: async () => triggers,
        sleep: async () => undefined,
        settleTimeoutMs: 1000,
      },
      run,
      caseOf(),
    );
    const session = await insertSession(store, {
      orgId: 'o1',
      agentId: 'a1',
      environment: 'main',
      workflow: 'answer',
      buildId: 'b1',
      commitId: 'c1',
      state: 'answer',
      trigger: 'crm',
      variables: {},
      lockedVariables: [],
      depth: 0,
      inheritedForbid: [],
      evaluation: { runId: 'ev-1', caseId: 'answer/d' },
    });
    await expect(driver.act(session._id, { deliver: { body: 1 } })).rejects.toMatchObject({ code: 'session_busy' });
    await sessionsOf(store).updateOne({ _id: session._id }, { $set: { status: 'awaiting_input' } });
    await driver.act(session._id, { deliver: { body: { ticket: 'T-1' } } });
    expect(queued).toHaveLength(1);
    const turn = (await turnsOf(store).findOne({ _id: queued[0]! }))!;
    expect(turn.kind).toBe('delivery');
    const message = (turn.input as { message: string }).message;
    expect(message).toContain('A new webhook firing of trigger "crm" was delivered to this session.');
    expect(message).toContain('"deliveryId":"ev-1/answer/d/2"');
    expect(message).toContain('"body":{"ticket":"T-1"}');
    expect((await sessionsOf(store).findOne({ _id: session._id }))!.status).toBe('running');
  });
});
