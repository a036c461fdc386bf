/**
 * The AG-UI stream of double-texting (docs/decisions.md D27 § 1) over the memory stores, with real scripted turns:
 * a queued message's run answers RUN_STARTED and `platform.queued` at once and streams only its own turn once it
 * starts; a run whose turn ended never shows the next queued turn's messages; a turn stopped by a new message ends
 * with `platform.notice` turn_interrupted and `result.interrupted`; a message dropped by a cancel ends RUN_ERROR
 * `message_dropped`; a run ends only once its settled turn's session write landed (a message sent on RUN_FINISHED
 * then finds the chat waiting for input, even with `reject`).
 */
import type { BaseEvent } from '@ag-ui/core';
import { describe, expect, it } from 'vitest';
import { cancelSession } from '../session/sessions.ts';
import { sessionsOf } from '../session/session-store.ts';
import { caller, chatTurns } from '../../test/helpers/chat-turns.ts';
import type { StartedRun } from './agui-run-model.ts';
import { streamRun } from './agui-stream.ts';

type Chat = ReturnType<typeof chatTurns>;

/** The run of a message sent to chat `id` (queued at `position`, or started at once). */
async function runOf(t: Chat, id: string, sent: { turnId: string; position?: number }): Promise<StartedRun> {
  const session = await t.session(id);
  return {
    threadId: 'th1',
    runId: `run-${sent.turnId}`,
    session,
    turnId: sent.turnId,
    fromSeq: session.messageCount,
    openChildren: [],
    since: new Date(0),
    ...(sent.position ? { queued: sent.position } : {}),
  };
}

/** Streams `run` to its end (reading the records every millisecond), collecting its events. */
async function stream(t: Chat, run: StartedRun): Promise<Record<string, unknown>[]> {
  const events: Record<string, unknown>[] = [];
  const deps = { docs: t.store.docs, sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)), now: () => 0 };
  await streamRun({ ...deps, pollMs: 1 }, run, (event: BaseEvent) => void events.push(event as never));
  return events;
}

const texts = (events: Record<string, unknown>[]) =>
  events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta);

describe('the AG-UI run of a message sent while a turn runs', () => {
  it('answers at once with its place, then streams only its own turn; the first run never shows it', async () => {
    const t = chatTurns();
    const id = await t.open();
    const first = await t.send(id, 'first', 'enqueue');
    const second = await t.send(id, 'second', 'enqueue');
    expect(second.position).toBe(1);
    const firstRun = await runOf(t, id, first);
    const waiting = stream(t, await runOf(t, id, second));
    await new Promise((r) => setTimeout(r, 20)); // it waits, reading, while nothing of its turn exists
    await t.runQueued();
    await t.runQueued();
    const events = await waiting;
    expect(events.slice(0, 2)).toMatchObject([
      { type: 'RUN_STARTED' },
      { type: 'CUSTOM', name: 'platform.queued', value: { position: 1, turnId: second.turnId } },
    ]);
    expect(texts(events)).toEqual(['reply 3']);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', result: { status: 'awaiting_input' } });
    // Streamed after both turns ran: the first run still shows only its own answer.
    const late = await stream(t, firstRun);
    expect(texts(late)).toEqual(['reply 2']);
    expect(late.some((e) => e.name === 'platform.queued')).toBe(false);
  });

  it('ends the stopped run with turn_interrupted and result.interrupted', async () => {
    const t = chatTurns();
    const id = await t.open();
    t.script.push(async () => {
      await t.send(id, 'instead', 'interrupt');
      return { advance: 'deep' };
    });
    const first = await t.send(id, 'go deep', 'interrupt');
    const run = await runOf(t, id, first);
    await t.runQueued();
    const events = await stream(t, run);
    expect(events.find((e) => e.name === 'platform.notice')).toMatchObject({
      value: { code: 'turn_interrupted', mode: 'interrupt', message: expect.stringContaining('what it did is kept') },
    });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', result: { interrupted: true } });
  });

  it("ends a run once its turn's session is written: `reject` takes a message sent on RUN_FINISHED", async () => {
    const t = chatTurns();
    const id = await t.open();
    const sent = await t.send(id, 'second', 'reject');
    const turn = await t.runQueued();
    // As between the settle's two writes: the turn settled, its session still running under the turn's lease.
    await sessionsOf(t.store).updateOne({ _id: id }, { $set: { status: 'running', lease: turn.lease } });
    let ended = false;
    const streamed = stream(t, await runOf(t, id, sent)).finally(() => (ended = true));
    await new Promise((r) => setTimeout(r, 20)); // it reads again and again while the session write is due
    expect(ended).toBe(false);
    await sessionsOf(t.store).updateOne({ _id: id }, { $set: { status: 'awaiting_input', lease: null } });
    expect((await streamed).at(-1)).toMatchObject({ type: 'RUN_FINISHED', result: { status: 'awaiting_input' } });
    expect(await t.send(id, 'third', 'reject')).toMatchObject({ turnId: expect.any(String) });
  });

  it('ends the run of a message the chat dropped (cancelled first) with message_dropped', async () => {
    const t = chatTurns();
    const id = await t.open();
    await t.send(id, 'first', 'enqueue');
    const queued = await t.send(id, 'never runs', 'enqueue');
    await cancelSession(t.deps, caller, id);
    const events = await stream(t, await runOf(t, id, queued));
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_ERROR',
      code: 'message_dropped',
      message: expect.stringContaining('it is cancelled'),
    });
    expect(texts(events)).toEqual([]);
  });
});
