/**
 * Decisions that expire and carry typed fields (docs/decisions.md D26 § 2), over the memory stores with real scripted
 * turns run through the store host (the broker's checks included): the park stamps `expiresAt` and `fields` from the
 * workflow; takeDecision refuses bad fields (400 naming the field) and an expired decision (409 saying when and
 * where the session goes); the fields become variables and the channel is on the trail; the park sweep moves an
 * expired session once even when two sweeps run at once, and of a decision and an expiry racing exactly one wins.
 */
import { describe, expect, it } from 'vitest';
import type { ModelEvent, ModelProvider } from '../ports/model-provider.ts';
import { checkpointViolation } from './broker-rules.ts';
import { stampDecisionTerms } from './decision-terms.ts';
import type { DecisionFieldSpec } from './model.ts';
import { sweepDueWaits } from './park-sweep.ts';
import { sessionsOf, turnsOf } from './session-store.ts';
import { decideSession, showSession, takeDecision } from './sessions.ts';
import { startSession } from './session-start.ts';
import type { WorkflowView } from './workflow-view.ts';
import { storeTurns } from '../../test/helpers/store-turns.ts';
import { brokerState, testWorkflow } from '../../test/helpers/broker-workflow.ts';

const fields: DecisionFieldSpec[] = [
  { name: 'amount', type: 'number', description: 'Approved amount (USD).', required: true },
  { name: 'note', type: 'string', required: false },
];
const TWO_HOURS = 2 * 3600 * 1000;
const refund: WorkflowView = testWorkflow('refund', {
  draft: brokerState('draft', { triggers: ['manual'], transitions: [{ to: 'approve', description: 'Drafted.' }] }),
  approve: brokerState('approve', {
    type: 'human',
    transitions: [{ to: 'done', description: 'Approve.' }, { to: 'draft', description: 'Redo.' }],
    expires: { afterMs: TWO_HOURS, to: 'lapsed' },
    fields,
  }),
  done: brokerState('done'),
  lapsed: brokerState('lapsed'),
});

/** A ModelProvider fake (a port): the draft state advances to approve. */
const model: ModelProvider = {
  async *stream(): AsyncIterable<ModelEvent> {
    yield { type: 'tool-call', call: { id: 'c1', name: 'platform_advance', input: { to: 'approve', reason: 'ok' } } };
    const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
    yield { type: 'finish', reason: 'tool-calls', usage };
  },
};

function setup() {
  const { deps, queue, runQueued, later } = storeTurns({ views: { refund }, models: model });
  const parked = async () => {
    const { session } = await startSession(deps, caller, { agent: 'a', environment: 'main', workflow: 'refund' });
    expect(await runQueued()).toMatchObject({ status: 'awaiting_decision' });
    return (await sessionsOf(deps).findOne({ _id: session._id }))!;
  };
  return { deps, queue, runQueued, parked, later };
}

const caller = { subject: 'u1', email: 'u1@example.test' };

describe('a decision with fields and an expiry', () => {
  it('parks with its expiry and fields, refuses bad fields naming them, and sets the values', async () => {
    const t = setup();
    const session = await t.parked();
    expect(session.pending).toMatchObject({
      kind: 'decision',
      state: 'approve',
      expiresAt: '2026-11-29T12:00:00.000Z',
      expiresTo: 'lapsed',
      fields,
    });
    const refused = (values: Record<string, unknown>) =>
      decideSession(t.deps, caller, session._id, { to: 'done', fields: values });
    await expect(refused({})).rejects.toMatchObject({
      code: 'invalid_decision_fields',
      status: 400,
      message: expect.stringContaining('field "amount" is required (number)'),
    });
    await expect(refused({ amount: '12' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('field "amount" must be a number, not string'),
    });
    await expect(refused({ amount: 12, colour: 'red' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining(
        'field "colour" is not a field of this decision (declared fields: amount, note)',
      ),
    });
    expect(t.queue).toEqual([]);

    t.later(TWO_HOURS - 1000);
    await decideSession(t.deps, caller, session._id, { to: 'done', comment: 'Fine.', fields: { amount: 12.5 } });
    expect(await t.runQueued()).toMatchObject({ status: 'succeeded' });
    const shown = await showSession(t.deps, caller, session._id);
    expect(shown.session.variables).toMatchObject({ amount: 12.5 });
    expect(shown.session.variables).not.toHaveProperty('note');
    expect(shown.session.trail.at(-1)).toMatchObject({ state: 'done', via: 'decision', by: 'u1', channel: 'api' });
    expect(shown.turns.at(-1)?.input.decision).toMatchObject({ channel: 'api', fields: { amount: 12.5 } });
  });

  it('refuses a decision after its expiry (409 saying when and where to), and the sweep moves it once', async () => {
    const t = setup();
    const session = await t.parked();
    t.later(TWO_HOURS);
    await expect(decideSession(t.deps, caller, session._id, { to: 'done', fields: { amount: 1 } })).rejects
      .toMatchObject({
        code: 'decision_expired',
        status: 409,
        message: expect.stringMatching(/expired at 2026-11-29T12:00:00.000Z.*moves to "lapsed"/),
      });
    const [first, second] = await Promise.all([sweepDueWaits(t.deps), sweepDueWaits(t.deps)]);
    expect([...first, ...second]).toHaveLength(1);
    expect(t.queue).toHaveLength(1);
    expect(await sweepDueWaits(t.deps)).toEqual([]);
    expect(await t.runQueued()).toMatchObject({ status: 'succeeded' });
    const shown = await showSession(t.deps, caller, session._id);
    expect(shown.session.state).toBe('lapsed');
    expect(shown.session.trail.at(-1)).toMatchObject({ state: 'lapsed', via: 'expired', by: 'platform' });
    expect(shown.session.trail.at(-1)).not.toHaveProperty('channel');
  });

  it('leaves a decision before its expiry to the member, and of a decision and an expiry racing one wins', async () => {
    const t = setup();
    const early = await t.parked();
    t.later(TWO_HOURS - 1);
    expect(await sweepDueWaits(t.deps)).toEqual([]);
    expect((await sessionsOf(t.deps).findOne({ _id: early._id }))?.status).toBe('awaiting_decision');

    // The member read the session before the expiry; the sweep runs at it: one compare-and-set wins.
    const loaded = (await sessionsOf(t.deps).findOne({ _id: early._id }))!;
    t.later(1);
    const [swept, decided] = await Promise.allSettled([
      sweepDueWaits(t.deps),
      takeDecision(t.deps, loaded, { to: 'done', fields: { amount: 3 }, channel: 'api' }, 'u1'),
    ]);
    expect(swept.status).toBe('fulfilled');
    const sweptTurns = swept.status === 'fulfilled' ? swept.value : [];
    expect(sweptTurns.length + (decided.status === 'fulfilled' ? 1 : 0)).toBe(1);
    const turns = await turnsOf(t.deps).find({ sessionId: early._id, kind: 'decision' });
    expect(turns).toHaveLength(1);
  });
});

describe('the broker rule of a decision turn', () => {
  const session = {
    state: 'approve',
    variables: {},
    lockedVariables: [],
    visit: { modelCalls: 0, parks: 0, entered: true },
    pending: { kind: 'decision' as const, id: 'p1', state: 'approve', options: refund.states.approve.transitions },
  };
  const decision = { to: 'done', by: 'u1', channel: 'agui' as const, fields: { amount: 4 } };
  const facts = {
    workflow: refund,
    session,
    turn: { kind: 'decision' as const, input: { decision } },
    advances: [],
    children: {},
  };
  const entry = (more: Record<string, unknown>) => ({
    state: 'done',
    trail: { state: 'done', via: 'decision' as const, by: 'u1', channel: 'agui' as const },
    variables: { amount: 4 },
    ...more,
  });

  it('takes the decision as carried, and refuses another channel, other variables or an expiry not carried', () => {
    expect(checkpointViolation(facts, entry({}))).toBeUndefined();
    const forged = [
      entry({ trail: { state: 'done', via: 'decision', by: 'u1', channel: 'api' } }),
      entry({ variables: { amount: 4000 } }),
      entry({ variables: { amount: 4, approved: true } }),
      entry({ state: 'lapsed', trail: { state: 'lapsed', via: 'expired', by: 'platform' }, variables: undefined }),
    ];
    for (const patch of forged) {
      expect(checkpointViolation(facts, patch)?.rule).toBe('decision_from_decide');
    }
    const expired = { decision: { to: 'lapsed', by: 'platform', expired: true } };
    const expiry = { ...facts, turn: { kind: 'decision' as const, input: expired } };
    const lapsed = { state: 'lapsed', trail: { state: 'lapsed', via: 'expired' as const, by: 'platform' } };
    expect(checkpointViolation(expiry, lapsed)).toBeUndefined();
  });
});

describe("a pending decision's terms", () => {
  it("are the workflow's or the parked child's, never what the worker wrote", () => {
    const at = new Date('2026-11-29T10:00:00.000Z');
    const options = refund.states.approve.transitions;
    const forged = {
      kind: 'decision' as const,
      id: '',
      state: 'approve',
      options,
      expiresAt: '2099-01-01T00:00:00.000Z',
    };
    expect(stampDecisionTerms(refund, { ...forged, fields: [] }, at)).toEqual({
      kind: 'decision',
      id: '',
      state: 'approve',
      options,
      expiresAt: '2026-11-29T12:00:00.000Z',
      expiresTo: 'lapsed',
      fields,
    });
    const onChild = { ...forged, state: 'check', childSessionId: 'c1' };
    const child = {
      kind: 'decision' as const,
      id: 'p9',
      state: 'check',
      options,
      expiresAt: '2026-11-30T00:00:00.000Z',
    };
    expect(stampDecisionTerms(refund, onChild, at, { ...child, expiresTo: 'lapsed' })).toMatchObject({
      expiresAt: '2026-11-30T00:00:00.000Z',
      expiresTo: 'lapsed',
    });
    expect(stampDecisionTerms(refund, onChild, at, null)).not.toHaveProperty('expiresAt');
  });
});
