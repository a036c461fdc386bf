/**
 * Double-texting (docs/decisions.md D27 § 1) over the memory stores, with real scripted turns run through the store
 * host: a message sent while a turn runs is refused (`reject`), queued in order (`enqueue`), or queued and stops the
 * running turn before its next model call keeping (`interrupt`) or discarding (`rollback`) what it did; a pending
 * decision blocks every strategy; a cancel drops the queue; concurrent sends all queue, in one order; and a process
 * that dies between the settle's two writes leaves nothing behind (the turn sweep hands the chat over, and restores a
 * rollback).
 */
import { describe, expect, it } from 'vitest';
import { MAX_QUEUED_MESSAGES } from './chat-queue.ts';
import { claimTurn, readThread, turnsOf } from './session-store.ts';
import { cancelSession } from './sessions.ts';
import { recoverTurns } from './turn-recovery.ts';
import { caller, chatTurns as setup, lines } from '../../test/helpers/chat-turns.ts';

describe('a message while a turn of the chat runs', () => {
  it('enqueue: messages sent meanwhile run next, in order, each once', async () => {
    const t = setup();
    const id = await t.open();
    const sent: unknown[] = [];
    t.script.push(async () => {
      sent.push(await t.send(id, 'second', 'enqueue'), await t.send(id, 'third', 'enqueue'));
      return { text: 'first answer' };
    });
    await t.send(id, 'first', 'enqueue');
    expect(await t.runQueued()).toMatchObject({ status: 'awaiting_input', input: { message: 'first' } });
    expect(sent).toEqual([{ turnId: expect.any(String), position: 1 }, { turnId: expect.any(String), position: 2 }]);
    // The settle handed the chat to the first queued message in the same write: it never waited for input.
    expect(await t.session(id)).toMatchObject({ status: 'running', queuedCount: 1, next: { kind: 'reply' } });
    expect(t.queue).toEqual([(sent[0] as { turnId: string }).turnId]);
    expect(await t.runQueued()).toMatchObject({ input: { message: 'second' } });
    expect(await t.runQueued()).toMatchObject({ input: { message: 'third' } });
    expect(t.queue).toEqual([]);
    expect(await t.session(id)).toMatchObject({ status: 'awaiting_input', queuedCount: 0, queued: [] });
    expect((await t.thread(id)).filter((m) => m.startsWith('user:'))).toEqual([
      'user:hello',
      'user:first',
      'user:second',
      'user:third',
    ]);
  });

  it('reject: 409 turn_running, and nothing is queued', async () => {
    const t = setup();
    const id = await t.open();
    let refused: unknown;
    t.script.push(async () => {
      refused = await t.send(id, 'second', 'reject').catch((error: unknown) => error);
      return { text: 'ok' };
    });
    await t.send(id, 'first', 'reject');
    await t.runQueued();
    expect(refused).toMatchObject({ code: 'turn_running', status: 409 });
    expect(await t.session(id)).toMatchObject({ status: 'awaiting_input' });
    expect(await t.session(id)).not.toHaveProperty('queued');
    expect(t.queue).toEqual([]);
  });

  it('interrupt: the turn stops before its next model call, keeps what it did, and the message runs next', async () => {
    const t = setup();
    const id = await t.open();
    t.script.push(async () => {
      await t.send(id, 'stop, do this instead', 'interrupt');
      return { advance: 'deep' };
    });
    await t.send(id, 'go deep', 'interrupt');
    const stopped = await t.runQueued();
    expect(stopped).toMatchObject({ status: 'awaiting_input', interrupted: 'interrupt' });
    expect(stopped).not.toHaveProperty('restore');
    expect(await t.session(id)).toMatchObject({ status: 'running', state: 'deep', interrupt: null });
    expect(await t.runQueued()).toMatchObject({
      status: 'awaiting_input',
      input: { message: 'stop, do this instead' },
    });
    const thread = await t.thread(id);
    expect(thread).toContain('user:go deep');
    expect(thread.filter((m) => m === 'tool:tools')).toHaveLength(1); // the advance's result was kept
    expect(thread.at(-2)).toBe('user:stop, do this instead');
    expect((await t.session(id)).trail.map((e) => e.state)).toContain('deep');
  });

  it('rollback: what the stopped turn did is discarded (messages, state, trail); the new message runs', async () => {
    const t = setup();
    const id = await t.open();
    const before = await t.session(id);
    t.script.push(async () => {
      await t.send(id, 'no, this', 'rollback');
      return { advance: 'deep' };
    });
    await t.send(id, 'go deep', 'rollback');
    expect(await t.runQueued()).toMatchObject({ status: 'awaiting_input', interrupted: 'rollback' });
    const restored = await t.session(id);
    expect(restored).toMatchObject({ status: 'running', state: 'talk', messageCount: before.messageCount });
    expect(restored.trail).toEqual(before.trail);
    expect(restored.variables).toEqual(before.variables);
    expect(await t.runQueued()).toMatchObject({ status: 'awaiting_input', input: { message: 'no, this' } });
    const thread = await t.thread(id);
    expect(thread).not.toContain('user:go deep');
    expect(thread.slice(0, 2)).toEqual(lines(await readThread(t.store, before)));
    expect(thread.slice(2)).toEqual(['user:no, this', 'assistant:reply 3']);
  });

  it('a pending decision blocks a message whatever the strategy', async () => {
    const t = setup();
    const id = await t.open();
    t.script.push(async () => ({ advance: 'review' }));
    await t.send(id, 'ask a person', 'enqueue');
    expect(await t.runQueued()).toMatchObject({ status: 'awaiting_decision' });
    for (const multitask of ['reject', 'enqueue', 'interrupt', 'rollback'] as const) {
      await expect(t.send(id, 'more', multitask)).rejects.toMatchObject({ code: 'decision_pending', status: 409 });
    }
  });

  it('a cancel drops the queued messages: no turn of theirs is ever inserted', async () => {
    const t = setup();
    const id = await t.open();
    t.script.push(async () => {
      await t.send(id, 'queued', 'enqueue');
      await cancelSession(t.deps, caller, id);
      return { text: 'late' };
    });
    await t.send(id, 'first', 'enqueue');
    await t.runQueued();
    const session = await t.session(id);
    expect(session.status).toBe('cancelled');
    expect(await turnsOf(t.store).findOne({ _id: session.queued![0].turnId })).toBeNull();
    expect(t.queue).toEqual([]);
  });

  it('refuses a message beyond MAX_QUEUED_MESSAGES waiting (409 chat_queue_full), keeping the queue', async () => {
    const t = setup();
    const id = await t.open();
    let refused: unknown;
    t.script.push(async () => {
      for (let k = 0; k < MAX_QUEUED_MESSAGES; k += 1) await t.send(id, `m${k}`, 'enqueue');
      refused = await t.send(id, 'one too many', 'enqueue').catch((error: unknown) => error);
      return { text: 'ok' };
    });
    await t.send(id, 'first', 'enqueue');
    await t.runQueued();
    expect(refused).toMatchObject({ code: 'chat_queue_full', status: 409 });
    const session = await t.session(id);
    expect([session.next?.input.message, ...session.queued!.map((q) => q.message)]).toHaveLength(MAX_QUEUED_MESSAGES);
  });

  it('concurrent sends all queue, each once, in one order', async () => {
    const t = setup();
    const id = await t.open();
    let positions: number[] = [];
    t.script.push(async () => {
      const sent = await Promise.all([1, 2, 3, 4, 5].map((k) => t.send(id, `m${k}`, 'enqueue')));
      positions = sent.map((s) => s.position!);
      return { text: 'ok' };
    });
    await t.send(id, 'first', 'enqueue');
    await t.runQueued();
    expect([...positions].sort()).toEqual([1, 2, 3, 4, 5]);
    const handed = await t.session(id);
    const order = [handed.next!.input.message, ...handed.queued!.map((q) => q.message)];
    for (let k = 0; k < 5; k += 1) await t.runQueued();
    const users = (await t.thread(id)).filter((m) => m.startsWith('user:m')).map((m) => m.slice(5));
    expect([...users].sort()).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect(users).toEqual(order);
  });
});

describe('a process that dies between the settle of the turn and of its chat', () => {
  it('leaves the chat running: the turn sweep hands it to the queued message (and restores a rollback)', async () => {
    for (const mode of ['enqueue', 'rollback'] as const) {
      const t = setup();
      const id = await t.open();
      const before = await t.session(id);
      await t.send(id, 'first', mode);
      const [turnId] = t.queue.splice(0);
      const claimed = (await claimTurn(t.store, turnId, 'dead'))!;
      const { turnId: queuedTurn } = await t.send(id, 'queued', mode);
      // The dead process wrote the turn's settle (the exactly-once claim) and died before the session's write.
      const restore = mode === 'rollback' ? { restore: { ...before, trail: before.trail } } : {};
      await turnsOf(t.store).updateOne({ _id: claimed._id }, { $set: { status: 'awaiting_input', ...restore } });
      const requeued: string[] = [];
      t.later(1000);
      const swept = await recoverTurns({ ...t.store, ensureTurnJob: async (turn) => !!requeued.push(turn) }, {
        graceMs: 0,
      });
      expect(swept.settled).toEqual([id]);
      expect(requeued).toEqual([queuedTurn]);
      expect(await t.session(id)).toMatchObject({ status: 'running', queuedCount: 0, next: { turnId: queuedTurn } });
      if (mode === 'rollback') expect((await t.session(id)).messageCount).toBe(before.messageCount);
      t.queue.push(queuedTurn);
      expect(await t.runQueued()).toMatchObject({ status: 'awaiting_input', input: { message: 'queued' } });
      const users = (await t.thread(id)).filter((m) => m.startsWith('user:'));
      expect(users).toEqual(['user:hello', 'user:queued']);
    }
  });
});
