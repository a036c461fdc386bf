/**
 * The AG-UI stream's pure parts: live text deltas against the checkpoint records (a missed start, a late delta,
 * deltas out of line, a child's text), and the RUN_FINISHED outcome of each way a turn leaves a chat, also when
 * the session is read while its settled turn's status is not yet written to it.
 */
import { describe, expect, it } from 'vitest';
import type { MessageRecord } from '../session/thread-model.ts';
import type { SessionRecord } from '../session/model.ts';
import { settledSession } from '../session/turn-settle.ts';
import { finishEvent } from './agui-finish.ts';
import { LiveText } from './agui-live-text.ts';

const record = (seq: number, content: string): MessageRecord => ({
  _id: `s1:${seq}`,
  schemaVersion: 1,
  sessionId: 's1',
  seq,
  turnId: 't1',
  state: 'talk',
  message: { role: 'assistant', content },
  at: new Date(0),
});
const delta = (seq: number, offset: number, text: string, sessionId = 's1') => ({
  rootId: 's1',
  sessionId,
  messageId: `${sessionId}:${seq}`,
  offset,
  text,
});

function live(fromSeq = 0) {
  const events: Record<string, unknown>[] = [];
  return { text: new LiveText('s1', fromSeq, (e) => events.push(e as Record<string, unknown>)), events };
}

describe('live text against the records', () => {
  it('streams deltas from the first character, then completes and closes the message from its record', () => {
    const { text, events } = live();
    text.delta(delta(0, 0, 'Hel'));
    text.delta(delta(0, 3, 'lo'));
    text.record(record(0, 'Hello there'));
    expect(events.map((e) => [e.type, e.delta])).toEqual([
      ['TEXT_MESSAGE_START', undefined],
      ['TEXT_MESSAGE_CONTENT', 'Hel'],
      ['TEXT_MESSAGE_CONTENT', 'lo'],
      ['TEXT_MESSAGE_CONTENT', ' there'],
      ['TEXT_MESSAGE_END', undefined],
    ]);
  });

  it('shows a message whole when its start was missed, and drops a delta that comes after its record', () => {
    const { text, events } = live();
    text.delta(delta(0, 5, ' there'));
    text.record(record(0, 'Hello there'));
    text.delta(delta(0, 11, '!'));
    expect(events.map((e) => [e.type, e.delta])).toEqual([['TEXT_MESSAGE_START', undefined], [
      'TEXT_MESSAGE_CONTENT',
      'Hello there',
    ], ['TEXT_MESSAGE_END', undefined]]);
  });

  it('stops streaming a message whose deltas stop lining up, and fills in the rest from the record', () => {
    const { text, events } = live();
    text.delta(delta(0, 0, 'Hel'));
    text.delta(delta(0, 7, 'xx'));
    text.delta(delta(0, 3, 'lo'));
    text.record(record(0, 'Hello'));
    expect(events.map((e) => e.delta).filter(Boolean)).toEqual(['Hel', 'lo']);
  });

  it(
    "never streams a child session's text or a message of an earlier run, and ends a message whose record never " +
      'came',
    () => {
      const { text, events } = live(3);
      text.delta(delta(3, 0, 'child', 'c1'));
      text.delta(delta(2, 0, 'old'));
      expect(events).toEqual([]);
      text.delta(delta(3, 0, 'Half a rep'));
      text.closeOpen();
      expect(events.map((e) => e.type)).toEqual(['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END']);
    },
  );
});

describe('how a run finishes', () => {
  const run = { threadId: 'th', runId: 'r' };
  const session = (fields: Partial<SessionRecord>) =>
    ({ _id: 's1', status: 'succeeded', pending: null, error: null, ...fields }) as SessionRecord;

  it('describes a pending decision as an interrupt answered by its id', () => {
    const event = finishEvent(
      run,
      session({
        status: 'awaiting_decision',
        pending: {
          kind: 'decision',
          id: 'p1',
          state: 'review',
          options: [{ to: 'yes', description: 'Approve.' }, { to: 'no', description: 'Reject.' }],
        },
      }),
    );
    expect(event).toMatchObject({
      type: 'RUN_FINISHED',
      threadId: 'th',
      outcome: {
        type: 'interrupt',
        interrupts: [{
          id: 'p1',
          reason: 'decision',
          responseSchema: { properties: { to: { enum: ['yes', 'no'] } }, required: ['to'] },
        }],
      },
    });
  });

  it(
    'describes a wait as an interrupt with its expiry, but a plain reply ' + 'waiting for the next message as success',
    () => {
      expect(
        finishEvent(
          run,
          session({
            status: 'awaiting_input',
            pending: {
              kind: 'input',
              id: 'p2',
              reason: 'Waiting for the nightly load.',
              until: '2026-11-25T00:00:00.000Z',
              wait: true,
            },
          }),
        ),
      )
        .toMatchObject({
          outcome: {
            type: 'interrupt',
            interrupts: [{
              id: 'p2',
              reason: 'wait',
              message: 'Waiting for the nightly load.',
              expiresAt: '2026-11-25T00:00:00.000Z',
            }],
          },
        });
      expect(
        finishEvent(
          run,
          session({
            status: 'awaiting_input',
            pending: { kind: 'input', id: 'p3', reason: 'The assistant replied and waits for the next message.' },
          }),
        ),
      )
        .toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' }, result: { status: 'awaiting_input' } });
    },
  );

  it('ends a cancelled chat as cancelled and a failed turn with RUN_ERROR naming the failure', () => {
    expect(finishEvent(run, session({ status: 'cancelled' }))).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'cancelled' },
    });
    expect(
      finishEvent(
        run,
        session({ status: 'failed', error: { code: 'turn_limit', message: 'The turn ran out of time.' } }),
      ),
    ).toEqual({ type: 'RUN_ERROR', code: 'turn_limit', message: 'The turn ran out of time.' });
  });

  it(
    "takes the settled turn's status when the session is read between the " + 'two writes of settling (still running)',
    () => {
      const pending = {
        kind: 'decision' as const,
        id: 'p4',
        state: 'review',
        options: [{ to: 'approved', description: 'Yes.' }],
      };
      const between = session({ status: 'running', pending });
      expect(finishEvent(run, settledSession(between, { status: 'awaiting_decision', error: null })))
        .toMatchObject({
          type: 'RUN_FINISHED',
          result: { status: 'awaiting_decision' },
          outcome: { type: 'interrupt', interrupts: [{ id: 'p4', reason: 'decision' }] },
        });
      expect(
        finishEvent(
          run,
          settledSession(session({ status: 'running' }), {
            status: 'failed',
            error: { code: 'turn_limit', message: 'Out of time.' },
          }),
        ),
      )
        .toEqual({ type: 'RUN_ERROR', code: 'turn_limit', message: 'Out of time.' });
      // A session already written, or a turn not settled, is left as it is.
      expect(settledSession(session({ status: 'succeeded' }), { status: 'awaiting_decision', error: null }).status)
        .toBe(
          'succeeded',
        );
      expect(settledSession(between, { status: 'running', error: null }).status).toBe('running');
      expect(settledSession(between, null).status).toBe('running');
    },
  );
});
