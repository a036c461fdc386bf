/**
 * An AG-UI chat parked on a decision with fields and an expiry (docs/decisions.md D26 § 2), over the memory stores
 * with the real run start: the interrupt carries `expiresAt` and a `responseSchema` whose `fields` is the JSON Schema
 * of the declared fields; a resume entry decides through takeDecision (channel `agui`, its fields checked); the same
 * answer sent again gets the first answer's turn, another answer 409.
 */
import { describe, expect, it } from 'vitest';
import { cryptoIds } from '../adapters/runtime/system.ts';
import type { SessionRecord } from '../session/model.ts';
import { sessionsOf, turnsOf } from '../session/session-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { startAguiRun } from './agui-runs.ts';
import type { ServedChat } from './agui-served.ts';
import { finishEvent } from './agui-finish.ts';
import { runStarted } from './agui-run-model.ts';
import type { ConnectionRecord } from './index.ts';

const connection = {
  _id: 'a1:main:chat',
  agentId: 'a1',
  environment: 'main',
  identifier: 'chat',
  protocol: 'agui',
  address: 'addr',
  rate: { perCaller: 60, perEndpoint: 600 },
} as unknown as ConnectionRecord;
const served: ServedChat = {
  orgId: 'o1',
  buildId: 'b1',
  commitId: 'c1',
  workflow: 'chat',
  trigger: { id: 'chat', state: 'talk' },
  disabled: false,
  multitask: 'reject',
};
const base = { runId: 'r1', tools: [], context: [] };
const caller = { kind: 'member' as const, subject: 'u1', rateKey: 'u1' };
const pending = {
  kind: 'decision' as const,
  id: 'p1',
  state: 'approve',
  options: [{ to: 'done', description: 'Approve.' }, { to: 'talk', description: 'Redo.' }],
  expiresAt: '2026-11-29T12:00:00.000Z',
  expiresTo: 'lapsed',
  fields: [{ name: 'amount', type: 'number' as const, required: true }, {
    name: 'note',
    type: 'string' as const,
    required: false,
  }],
};

async function parkedChat() {
  const queued: string[] = [];
  const deps = {
    docs: createMemoryDocumentStore(),
    objects: createMemoryObjectStore(),
    clock: { now: () => new Date('2026-11-29T10:00:00.000Z') },
    ids: cryptoIds,
    enqueueTurn: async (turnId: string) => void queued.push(turnId),
    // The endpoint counters, a port: every call allowed (the counting is endpoint-rates.test.ts's).
    endpointRates: { consume: async () => undefined },
    builds: {} as never,
  };
  const messages = [{ id: 'm1', role: 'user', content: 'refund me' }];
  const run = await runStarted(
    await startAguiRun(deps, connection, caller, { served, input: { ...base, threadId: '', messages } }),
  );
  await run.recorded;
  await turnsOf(deps).updateOne({ _id: run.turnId }, { $set: { status: 'awaiting_decision' } });
  await sessionsOf(deps).updateOne({ _id: run.session._id }, { $set: { status: 'awaiting_decision', pending } });
  const resume = (payload: unknown) =>
    startAguiRun(deps, connection, caller, {
      served,
      input: {
        ...base,
        threadId: run.threadId,
        messages: [],
        resume: [{ interruptId: 'p1', status: 'resolved', payload }],
      },
    }).then(runStarted);
  return { deps, run, resume, queued };
}

describe('an AG-UI decision interrupt with fields and an expiry', () => {
  it('carries expiresAt and the JSON Schema of the fields', () => {
    const session = { _id: 's1', status: 'awaiting_decision', pending } as unknown as SessionRecord;
    const event = finishEvent({ threadId: 't1', runId: 'r1' }, session) as {
      outcome: { interrupts: { expiresAt?: string; responseSchema: Record<string, unknown> }[] };
    };
    const [interrupt] = event.outcome.interrupts;
    expect(interrupt.expiresAt).toBe('2026-11-29T12:00:00.000Z');
    expect(interrupt.responseSchema).toEqual({
      type: 'object',
      properties: {
        to: { type: 'string', enum: ['done', 'talk'] },
        comment: { type: 'string' },
        fields: {
          type: 'object',
          properties: { amount: { type: 'number' }, note: { type: 'string' } },
          required: ['amount'],
          additionalProperties: false,
        },
      },
      required: ['to', 'fields'],
    });
  });

  it('decides through takeDecision, gives a repeated answer its first turn, and refuses another answer', async () => {
    const chat = await parkedChat();
    await expect(chat.resume({ to: 'done', fields: { amount: 'ten' } })).rejects.toMatchObject({
      code: 'invalid_decision_fields',
      status: 400,
      message: expect.stringContaining('field "amount" must be a number'),
    });
    const first = await chat.resume({ to: 'done', fields: { amount: 10 } });
    const turn = await turnsOf(chat.deps).findOne({ _id: first.turnId });
    expect(turn?.input.decision).toMatchObject({
      to: 'done',
      by: 'member:u1',
      channel: 'agui',
      fields: { amount: 10 },
      pendingId: 'p1',
    });
    const again = await chat.resume({ to: 'done', fields: { amount: 10 } });
    expect(again.turnId).toBe(first.turnId);
    expect(chat.queued.filter((id) => id === first.turnId)).toHaveLength(1);
    await expect(chat.resume({ to: 'talk' })).rejects.toMatchObject({ code: 'decision_taken', status: 409 });
    await expect(chat.resume({ to: 'done', fields: { amount: 11 } })).rejects.toMatchObject({ status: 409 });
  });
});
