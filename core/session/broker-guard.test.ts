/**
 * The store host (the broker's side of a turn worker's channel) applies the broker's rules over the records: an
 * advance backed by the model's reply passes and one without it is refused; the first refusal ends the run (the
 * turn fails, every later operation is refused, the dispatcher is told once); a child's ancestry and inherited
 * forbids come from the parent's records; only the child a session is parked on is resumed, with the parent's own
 * decision, once. Stores and the model are port fakes (core/testing, a scripted ModelProvider).
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../adapters/runtime/system-clock.ts';
import type { ModelEvent, ModelProvider } from '../ports/model-provider.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { brokerWorkflow as workflow } from '../../test/helpers/broker-workflow.ts';
import type { BrokerViolationError } from './broker-rules.ts';
import type { SessionRecord, TurnRecord } from './model.ts';
import { insertSession, insertTurn, sessionsOf, turnsOf } from './session-store.ts';
import { createStoreHost } from './store-host.ts';

/** A ModelProvider fake (a port) whose one reply calls `platform_advance` to `to`. */
const advancingModel = (to: string): ModelProvider => ({
  async *stream(): AsyncIterable<ModelEvent> {
    yield { type: 'tool-call', call: { id: 'c1', name: 'platform_advance', input: { to, reason: 'done' } } };
    yield {
      type: 'finish',
      reason: 'tool-calls',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    };
  },
});

async function world(
  options: { session?: Partial<SessionRecord>; turn?: Pick<TurnRecord, 'kind' | 'input'>; model?: string } = {},
) {
  let n = 0;
  const ids = {
    newId: () => `id${(n += 1)}`,
    randomBytes: (k: number) => new Uint8Array(k),
    sha256Hex: async () => '0',
  };
  const store = { docs: createMemoryDocumentStore(), objects: createMemoryObjectStore(), clock: systemClock, ids };
  const session = await insertSession(store, {
    orgId: 'o1',
    agentId: 'a1',
    environment: 'main',
    workflow: 'analyst',
    buildId: 'b1',
    commitId: 'c1',
    state: 'ask',
    trigger: 'manual',
    variables: { region: 'EU', answer: 'x' },
    lockedVariables: ['region', 'trigger'],
    depth: 0,
    inheritedForbid: [],
    ...options.session,
  });
  const { kind, input } = options.turn ?? { kind: 'prompt' as const, input: { message: 'hi' } };
  const turn = await insertTurn(store, session, { kind, input, status: 'running' });
  const violations: BrokerViolationError[] = [];
  const host = createStoreHost(
    {
      ...store,
      models: advancingModel(options.model ?? 'review'),
      workflowOf: async () => workflow,
      costOf: () => 0,
      serviceTools: async () => [],
      callServiceTool: async () => ({ output: 'answered', isError: false }),
      promptCache: { enabled: false, ttl: '5m' },
      callSignal: () => undefined,
      onViolation: (error) => violations.push(error),
    },
    turn._id,
  );
  const read = async () => ({
    session: (await sessionsOf(store).findOne({ _id: session._id }))!,
    turn: (await turnsOf(store).findOne({ _id: turn._id }))!,
  });
  return { store, host, session, turn, violations, read };
}

const fresh = { modelCalls: 0, parks: 0, entered: false };
const advance = (to: string) => ({
  state: to,
  trail: { state: to, via: 'advance' as const },
  visit: fresh,
  pending: null,
});
const call = {
  messages: [{ role: 'user' as const, content: 'go' }],
  tools: [{ name: 'platform_advance', description: 'd', inputSchema: {} }],
};
const promptCache = { enabled: false, ttl: '5m' as const };

describe('the store host as the broker', () => {
  it('records an advance the model asked for, once', async () => {
    const w = await world();
    await w.host.callModel(w.turn._id, { ...call, promptCache });
    await w.host.checkpoint(w.turn._id, advance('review'));
    expect((await w.read()).session).toMatchObject({
      state: 'review',
      trail: [{ via: 'start' }, { state: 'review', via: 'advance' }],
    });
    expect(w.violations).toEqual([]);
  });

  it('refuses an advance no model reply asked for; the first refusal ends the run and takes nothing more', async () => {
    const w = await world();
    const refused = { code: 'workflow_violation', rule: 'advance_called' };
    await expect(w.host.checkpoint(w.turn._id, advance('review'))).rejects.toMatchObject(refused);
    await expect(w.host.checkpoint(w.turn._id, { variables: { answer: 'fine' } })).rejects.toMatchObject(refused);
    await expect(w.host.loadTurn(w.turn._id)).rejects.toMatchObject(refused);
    await expect(
      w.host.endTurn(w.turn._id, { status: 'failed', error: { code: 'x', message: 'y' } }),
    ).rejects.toMatchObject(refused);
    const { session, turn } = await w.read();
    expect(turn).toMatchObject({ status: 'failed', error: { code: 'workflow_violation' } });
    expect(session).toMatchObject({ status: 'failed', state: 'ask', variables: { region: 'EU', answer: 'x' } });
    expect(w.violations.map((v) => v.rule)).toEqual(['advance_called']);
  });

  it("opens a child with the ancestry and inherited forbids of the parent's records, not the worker's", async () => {
    const w = await world({ session: { ancestry: ['root'], inheritedForbid: [{ tool: 'github' }], depth: 1 } });
    const forged = {
      workflow: 'lookup',
      dispatchId: '1',
      arguments: { airline: 'AA' },
      inheritedForbid: [],
      ancestry: [],
    };
    const { sessionId } = await w.host.openChild(w.turn._id, forged);
    const child = await sessionsOf(w.store).findOne({ _id: sessionId });
    expect(child).toMatchObject({
      ancestry: ['root', 'analyst'],
      inheritedForbid: [{ tool: 'semantic/request_improvement' }, { tool: 'github' }],
      lockedVariables: ['airline'],
      dispatchId: '1',
      parentId: w.session._id,
    });
  });

  it("resumes only the child the session is parked on, with the parent turn's own decision, once", async () => {
    const decision = { to: 'found', by: 'ada' };
    const w = await world({ turn: { kind: 'decision', input: { decision } } });
    const child = await insertSession(w.store, {
      orgId: 'o1',
      agentId: 'a1',
      environment: 'main',
      workflow: 'lookup',
      buildId: 'b1',
      commitId: 'c1',
      state: 'check',
      trigger: 'manual',
      variables: {},
      lockedVariables: [],
      depth: 1,
      inheritedForbid: [],
      parentId: w.session._id,
    });
    await sessionsOf(w.store).updateOne({ _id: child._id }, { $set: { status: 'awaiting_decision' } });
    const pending = {
      kind: 'decision',
      id: 'p',
      state: 'check',
      options: [{ to: 'found', description: 'OK.' }],
      childSessionId: child._id,
    };
    await sessionsOf(w.store).updateOne({ _id: w.session._id }, { $set: { pending } });
    const { turnId } = await w.host.resumeChild(w.turn._id, child._id, { kind: 'decision', decision });
    expect(await turnsOf(w.store).findOne({ _id: turnId })).toMatchObject({
      sessionId: child._id,
      kind: 'decision',
      input: { decision },
    });
    const again = w.host.resumeChild(w.turn._id, child._id, { kind: 'decision', decision });
    await expect(again).rejects.toMatchObject({ code: 'workflow_violation', rule: 'resume_parked_child' });
    expect(await turnsOf(w.store).countDocuments({ sessionId: child._id })).toBe(1);
  });
});
