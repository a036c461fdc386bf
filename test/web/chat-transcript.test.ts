/**
 * The Chat page's transcript rules (web/src/pages/platform/chat/transcript.ts) over AG-UI event sequences as the
 * endpoint emits them (core/connection/agui-stream.ts): streamed text accumulates into one assistant message; child
 * sessions become sub-workflow blocks (nested by parent dispatch id) whose text never enters the assistant's
 * messages; a decision interrupt shows its options; a wait shows what it waits for and until when; RUN_ERROR is an
 * error; a chat opened from history is rebuilt from stored messages with its pending decision. Several runs on one
 * chat (docs/decisions.md D27 § 1): a message sent while a turn runs shows at once and carries its place while
 * queued, moves up as the runs ahead hand the chat over, and each run's events land on its own entries (also when a
 * rolled-back turn's message ids come back); a turn stopped by a new message gets a quiet note, its entries greyed
 * under rollback; a dropped message is an error that keeps the chat's status; a refused one is taken back.
 *
 * The page's conversation (web/src/pages/platform/chat/conversation.ts) is also driven against a real AG-UI server
 * on loopback (the endpoint's answers scripted: a running turn, a queued message, a 409 `turn_running`): each send
 * is its own run on the chat's thread, the first run's stream carries on undisturbed, and a refused message comes
 * back to the caller without a console error.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Conversation } from '../../web/src/pages/platform/chat/conversation.ts';
import { beginRun, discardedNote, queuedLabel, refuseRun, stoppedNote } from '../../web/src/pages/platform/chat/runs.ts';
import { applyEvent, chatEnded, emptyTranscript, fromStoredMessages, pendingDecision, type ChatEvent, type Transcript } from '../../web/src/pages/platform/chat/transcript.ts';

const fold = (events: ChatEvent[], start: Transcript = emptyTranscript()) => events.reduce((t, e) => applyEvent(t, e), start);
/** Events of several runs, in the order the page receives them: [run, event]. */
const foldRuns = (events: [string, ChatEvent][], start: Transcript) => events.reduce((t, [run, e]) => applyEvent(t, e, run), start);
const text = (messageId: string, delta: string): ChatEvent[] => [
  { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' }, { type: 'TEXT_MESSAGE_CONTENT', messageId, delta }, { type: 'TEXT_MESSAGE_END', messageId },
];
const finished = (status: string, more: Record<string, unknown> = {}): ChatEvent => ({ type: 'RUN_FINISHED', result: { status, sessionId: 's', ...more }, outcome: { type: 'success' } });
/** Run A begun as the page begins it (its message shown, then its RUN_STARTED) and its `events`; then B's message sent while A runs. */
const twoRuns = (events: [string, ChatEvent][] = []): Transcript =>
  beginRun(foldRuns([['A', { type: 'RUN_STARTED', threadId: 'th' }], ...events], beginRun(emptyTranscript(), 'A', 'First')), 'B', 'Second');
const ofRun = (run: string, events: ChatEvent[]): [string, ChatEvent][] => events.map((e) => [run, e]);
const user = (t: Transcript, run: string) => t.items.find((i) => i.kind === 'user' && i.run === run);
const custom = (name: string, value: Record<string, unknown>): ChatEvent => ({ type: 'CUSTOM', name, value });

describe('chat transcript', () => {
  it('streams text, builds nested sub-workflow blocks apart from the text, and ends on a decision', () => {
    const t = fold([
      { type: 'RUN_STARTED', threadId: 'th1', runId: 'r1' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Looking ' },
      { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'platform_workflow_helper' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"topic":' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '"cancellations"}' },
      { type: 'TOOL_CALL_END', toolCallId: 'c1' },
      custom('platform.sub_workflow_start', { dispatchId: '1', workflow: 'helper' }),
      custom('platform.sub_workflow_frame', { dispatchId: '1', message: { id: 'x', role: 'assistant', content: 'Child text: 42 cancellations.' } }),
      custom('platform.sub_workflow_start', { dispatchId: '1~1', parent: '1', workflow: 'deeper' }),
      custom('platform.sub_workflow_frame', { dispatchId: '1~1', parent: '1', message: { id: 'y', role: 'assistant', content: 'Grandchild.' } }),
      custom('platform.sub_workflow_result', { dispatchId: '1~1', parent: '1', status: 'succeeded' }),
      custom('platform.sub_workflow_result', { dispatchId: '1', status: 'succeeded', message: 'Child text: 42 cancellations.' }),
      { type: 'TOOL_CALL_RESULT', toolCallId: 'c1', content: 'Child text: 42 cancellations.' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'it up.' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
      {
        type: 'RUN_FINISHED', threadId: 'th1', runId: 'r1', result: { status: 'awaiting_decision', sessionId: 's1' },
        outcome: { type: 'interrupt', interrupts: [{ id: 'i1', reason: 'decision', message: 'A decision is needed in state review.', metadata: { options: [{ to: 'approved', description: 'Ship it.' }, { to: 'rejected', description: 'No.' }] } }] },
      },
    ]);
    expect([t.threadId, t.sessionId, t.status, t.running]).toEqual(['th1', 's1', 'awaiting_decision', false]);
    expect(t.items.map((i) => i.kind)).toEqual(['assistant', 'tool', 'sub', 'decision']);
    const assistant = t.items[0];
    expect(assistant).toMatchObject({ kind: 'assistant', text: 'Looking it up.', streaming: false });
    const sub = t.items[2];
    if (sub.kind !== 'sub') throw new Error('expected a sub-workflow block');
    expect(sub.block).toMatchObject({ dispatchId: '1', workflow: 'helper', frames: [{ role: 'assistant', text: 'Child text: 42 cancellations.' }], result: { status: 'succeeded' } });
    expect(sub.block.children).toHaveLength(1);
    expect(sub.block.children[0]).toMatchObject({ dispatchId: '1~1', parent: '1', workflow: 'deeper', frames: [{ text: 'Grandchild.' }], result: { status: 'succeeded' } });
    expect(t.items.filter((i) => i.kind === 'assistant').some((i) => i.kind === 'assistant' && i.text.includes('Child text'))).toBe(false);
    expect(pendingDecision(t)).toMatchObject({ interruptId: 'i1', options: [{ to: 'approved' }, { to: 'rejected' }] });
    expect(t.items[1]).toMatchObject({ kind: 'tool', name: 'platform_workflow_helper', done: true, args: '{"topic":"cancellations"}', result: 'Child text: 42 cancellations.' });
  });

  it('shows a wait with its end, a success that ends the chat, and a failed run as an error', () => {
    const waiting = fold([
      { type: 'RUN_STARTED', threadId: 'th2', runId: 'r' },
      { type: 'RUN_FINISHED', result: { status: 'awaiting_input', sessionId: 's2' }, outcome: { type: 'interrupt', interrupts: [{ id: 'w1', reason: 'wait', message: 'Waiting for the export to finish.', expiresAt: '2026-11-25T10:00:00.000Z' }] } },
    ]);
    expect(waiting.items).toEqual([expect.objectContaining({ kind: 'wait', message: 'Waiting for the export to finish.', expiresAt: '2026-11-25T10:00:00.000Z' })]);
    expect([pendingDecision(waiting), chatEnded(waiting)]).toEqual([undefined, false]);
    const done = fold([{ type: 'RUN_STARTED', threadId: 'th2' }, { type: 'RUN_FINISHED', result: { status: 'succeeded', sessionId: 's2' }, outcome: { type: 'success' } }], waiting);
    expect(chatEnded(done)).toBe(true);
    const failed = fold([{ type: 'RUN_STARTED', threadId: 'th3' }, { type: 'RUN_ERROR', code: 'budget_exceeded', message: 'The state used its 20 model calls.' }]);
    expect(failed.items).toEqual([expect.objectContaining({ kind: 'error', code: 'budget_exceeded', message: 'The state used its 20 model calls.' })]);
    expect([failed.running, chatEnded(failed)]).toEqual([false, true]);
  });

  it('rebuilds a chat from stored messages with its pending decision', () => {
    const t = fromStoredMessages([
      { seq: 0, state: 'answer', turnId: 't', at: '', message: { role: 'system', content: 'You are…' } },
      { seq: 1, state: 'answer', turnId: 't', at: '', message: { role: 'user', content: 'Which state?' } },
      { seq: 2, state: 'answer', turnId: 't', at: '', message: { role: 'assistant', content: '', toolCalls: [{ id: 'q', name: 'semantic/execute_query', input: { modelName: 'flights', sql: 'SELECT 1' } }] } },
      { seq: 3, state: 'answer', turnId: 't', at: '', message: { role: 'tool', results: [{ callId: 'q', name: 'semantic/execute_query', output: 'x'.repeat(5000), isError: true }] } },
      { seq: 4, state: 'answer', turnId: 't', at: '', message: { role: 'assistant', content: 'California.', toolCalls: [{ id: 'c', name: 'platform_advance', input: {} }] } },
      { seq: 5, state: 'answer', turnId: 't', at: '', message: { role: 'tool', results: [] } },
    ], { id: 's9', status: 'awaiting_decision', pending: { kind: 'decision', id: 'd9', state: 'review', options: [{ to: 'done', description: 'Approve.' }] } }, 'th9');
    expect(t.items.map((i) => i.kind)).toEqual(['user', 'tool', 'assistant', 'tool', 'decision']);
    // The query's input and its (failed, long) result, cut to 4000 characters; a stored call without a result is shown as done, with none.
    expect(t.items[1]).toMatchObject({ kind: 'tool', name: 'semantic/execute_query', args: '{"modelName":"flights","sql":"SELECT 1"}', done: true, isError: true, result: `${'x'.repeat(4000)}… (1000 more characters)` });
    expect(t.items[3]).toMatchObject({ kind: 'tool', name: 'platform_advance', done: true, args: '{}' });
    expect(t.items[3]).not.toHaveProperty('result');
    expect(pendingDecision(t)).toMatchObject({ interruptId: 'd9', options: [{ to: 'done' }] });
    expect([t.threadId, t.sessionId]).toEqual(['th9', 's9']);
  });

  it('labels a message queued behind a running turn, moves it up when the turn hands over, and streams each run into its own entries', () => {
    let t = foldRuns([
      ['B', { type: 'RUN_STARTED', threadId: 'th' }],
      ['B', custom('platform.queued', { position: 1, turnId: 'tb' })],
      ['A', { type: 'TOOL_CALL_ARGS', toolCallId: 'call_1', delta: '{"a":1}' }],
      ...ofRun('A', text('s:3', 'Answer A.')),
    ], twoRuns([['A', { type: 'TOOL_CALL_START', toolCallId: 'call_1', toolCallName: 'lookup' }]]));
    expect(user(t, 'B')).toMatchObject({ text: 'Second', queued: 1 });
    expect(queuedLabel(1)).toBe('Queued: runs after the current answer');
    expect(queuedLabel(2)).toBe('Queued (2)');
    expect([t.running, Object.keys(t.runs ?? {})]).toEqual([true, ['A', 'B']]);
    // A third message queues behind B; A's turn leaves the chat waiting for input: B is next (its turn runs), C moves up.
    t = foldRuns([['C', { type: 'RUN_STARTED', threadId: 'th' }], ['C', custom('platform.queued', { position: 2, turnId: 'tc' })]], beginRun(t, 'C', 'Third'));
    expect(user(t, 'C')).toMatchObject({ queued: 2 });
    t = foldRuns([['A', finished('awaiting_input')]], t);
    expect(user(t, 'B')).not.toHaveProperty('queued');
    expect(user(t, 'C')).toMatchObject({ queued: 1 });
    expect([t.running, t.status]).toEqual([true, 'awaiting_input']);
    // B's turn reuses a tool call id of A's: each run's events land on its own entries.
    t = foldRuns([
      ['B', { type: 'TOOL_CALL_START', toolCallId: 'call_1', toolCallName: 'lookup' }],
      ['B', { type: 'TOOL_CALL_ARGS', toolCallId: 'call_1', delta: '{"b":2}' }],
      ['B', { type: 'TOOL_CALL_RESULT', toolCallId: 'call_1', content: 'B result' }],
      ...ofRun('B', text('s:6', 'Answer B.')),
    ], t);
    const tools = t.items.filter((i) => i.kind === 'tool');
    expect(tools).toEqual([expect.objectContaining({ run: 'A', args: '{"a":1}', done: false }), expect.objectContaining({ run: 'B', args: '{"b":2}', done: true, result: 'B result' })]);
    expect(new Set(t.items.map((i) => i.key)).size).toBe(t.items.length);
    // The messages show when sent; the answers land where their events arrive.
    expect(t.items.map((i) => [i.kind, i.run])).toEqual([
      ['user', 'A'], ['tool', 'A'], ['user', 'B'], ['assistant', 'A'], ['user', 'C'], ['tool', 'B'], ['assistant', 'B'],
    ]);
    expect(t.items.filter((i) => i.kind === 'assistant').map((i) => i.kind === 'assistant' && i.text)).toEqual(['Answer A.', 'Answer B.']);
  });

  it('keeps a decision answerable while a message waits behind it', () => {
    const t = foldRuns([
      ['B', { type: 'RUN_STARTED', threadId: 'th' }],
      ['B', custom('platform.queued', { position: 1, turnId: 'tb' })],
      ['A', { type: 'RUN_FINISHED', result: { status: 'awaiting_decision', sessionId: 's' }, outcome: { type: 'interrupt', interrupts: [{ id: 'd1', reason: 'decision', metadata: { options: [{ to: 'done', description: '' }] } }] } }],
    ], twoRuns());
    // A decision parks the queue: B stays queued, and the decision is the one to take (no run streams).
    expect(user(t, 'B')).toMatchObject({ queued: 1 });
    expect([t.running, pendingDecision(t)?.interruptId]).toEqual([false, 'd1']);
  });

  it('notes a turn stopped by a new message, keeping what it did', () => {
    const t = foldRuns([
      ['B', { type: 'RUN_STARTED', threadId: 'th' }],
      ['B', custom('platform.queued', { position: 1, turnId: 'tb' })],
      ['A', custom('platform.notice', { code: 'turn_interrupted', mode: 'interrupt', message: 'A new message stopped this turn before its next model call; what it did is kept.' })],
      ['A', finished('awaiting_input', { interrupted: true })],
    ], twoRuns(ofRun('A', text('s:1', 'Partial A.'))));
    // The note sits right after the stopped run's entries, above the message that stopped it, which now runs.
    expect(t.items.map((i) => i.kind)).toEqual(['user', 'assistant', 'notice', 'user']);
    expect(t.items[2]).toMatchObject({ kind: 'notice', text: stoppedNote, stopped: true });
    expect(t.items.some((i) => i.discarded)).toBe(false);
    expect(user(t, 'B')).not.toHaveProperty('queued');
    expect(t.running).toBe(true);
  });

  it('greys the entries of a rolled-back turn and streams the next turn apart from them, though its message ids come back', () => {
    const t = foldRuns([
      ['B', { type: 'RUN_STARTED', threadId: 'th' }],
      ['B', custom('platform.queued', { position: 1, turnId: 'tb' })],
      ['A', custom('platform.notice', { code: 'turn_interrupted', mode: 'rollback', message: 'A new message stopped this turn before its next model call; what it did was discarded.' })],
      ['A', finished('awaiting_input', { interrupted: true })],
      ...ofRun('B', text('s:1', 'Answer B.')),
      ['B', finished('awaiting_input')],
    ], twoRuns([...ofRun('A', text('s:1', 'Partial A.')), ['A', { type: 'TOOL_CALL_START', toolCallId: 'q', toolCallName: 'lookup' }]]));
    expect(t.items.map((i) => [i.kind, i.run, Boolean(i.discarded)])).toEqual([
      ['user', 'A', true], ['assistant', 'A', true], ['tool', 'A', true], ['notice', 'A', false], ['user', 'B', false], ['assistant', 'B', false],
    ]);
    expect(t.items[3]).toMatchObject({ text: discardedNote, stopped: true });
    expect(t.items[1]).toMatchObject({ text: 'Partial A.' });
    expect(t.items[5]).toMatchObject({ text: 'Answer B.', streaming: false });
    expect(t.items[5].key).not.toBe(t.items[1].key);
    expect([t.running, t.runs]).toEqual([false, {}]);
  });

  it('shows a dropped message as an error, keeping the status of the run that ended the chat', () => {
    const t = foldRuns([
      ['B', { type: 'RUN_STARTED', threadId: 'th' }],
      ['B', custom('platform.queued', { position: 1, turnId: 'tb' })],
      ['A', finished('succeeded')],
      ['B', { type: 'RUN_ERROR', code: 'message_dropped', message: 'The chat ended before this message ran (it is succeeded); it was not sent to the workflow.' }],
    ], twoRuns());
    expect(t.items.at(-1)).toMatchObject({ kind: 'error', code: 'message_dropped', run: 'B' });
    expect(user(t, 'B')).not.toHaveProperty('queued');
    expect([t.status, chatEnded(t), t.running]).toEqual(['succeeded', true, false]);
  });

  it('takes a refused message back and shows the platform\'s message in place of a failure', () => {
    const t = refuseRun(twoRuns(), 'B', 'A turn of this chat is still running; send the message once its run has finished.');
    expect(t.items.map((i) => i.kind)).toEqual(['user', 'notice']);
    expect(t.items[1]).toMatchObject({ kind: 'notice', text: 'A turn of this chat is still running; send the message once its run has finished.' });
    expect([t.running, Object.keys(t.runs ?? {})]).toEqual([true, ['A']]);
  });
});

describe('chat conversation over a loopback AG-UI server', () => {
  const refusal = 'A turn of this chat is still running; send the message once its run has finished.';
  const bodies: { threadId?: string; messages?: { content?: string }[] }[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => { release = resolve; });
  let server: Server;
  let endpoint = '';
  const sse = (res: ServerResponse, event: Record<string, unknown>) => res.write(`data: ${JSON.stringify(event)}\n\n`);
  const answer = async (res: ServerResponse, run: { runId: string; text: string; queued?: boolean }) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const ids = { threadId: 'th-1', runId: run.runId };
    sse(res, { type: 'RUN_STARTED', ...ids });
    if (run.queued) sse(res, { type: 'CUSTOM', name: 'platform.queued', value: { position: 1, turnId: 't2' } });
    else sse(res, { type: 'TEXT_MESSAGE_START', messageId: 's:1', role: 'assistant' });
    await released;
    // Both turns write message s:1 (the second after a rollback, say): each lands on its own run's entry.
    if (run.queued) sse(res, { type: 'TEXT_MESSAGE_START', messageId: 's:1', role: 'assistant' });
    sse(res, { type: 'TEXT_MESSAGE_CONTENT', messageId: 's:1', delta: run.text });
    sse(res, { type: 'TEXT_MESSAGE_END', messageId: 's:1' });
    sse(res, { type: 'RUN_FINISHED', ...ids, result: { status: 'awaiting_input', sessionId: 's' }, outcome: { type: 'success' } });
    res.end();
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => { text += chunk.toString(); });
      req.on('end', () => {
        const body = JSON.parse(text) as (typeof bodies)[number];
        bodies.push(body);
        const message = body.messages?.at(-1)?.content;
        if (message === 'Third') {
          res.writeHead(409, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'turn_running', message: refusal } }));
        } else void answer(res, message === 'First' ? { runId: 'r1', text: 'Answer one.' } : { runId: 'r2', text: 'Answer two.', queued: true });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/agui/chat`;
  });
  afterAll(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));

  it('runs a message sent meanwhile on its own agent, labels it queued, and takes back a refused one', async () => {
    const consoleErrors = vi.spyOn(console, 'error');
    const conversation = new Conversation({ title: 'Analyst', endpoint });
    const state = () => conversation.snapshot();
    const first = conversation.send('First');
    await vi.waitFor(() => expect(state().items.some((i) => i.kind === 'assistant')).toBe(true));
    expect([state().threadId, state().running]).toEqual(['th-1', true]);

    const second = conversation.send('Second');
    await vi.waitFor(() => expect(state().items.find((i) => i.kind === 'user' && i.text === 'Second')).toMatchObject({ queued: 1 }));
    expect(bodies[1]).toMatchObject({ threadId: 'th-1', messages: [{ content: 'Second' }] });
    expect(bodies[1].messages).toHaveLength(1);

    await expect(conversation.send('Third')).resolves.toEqual({ refused: refusal });
    expect(state().items.some((i) => i.kind === 'user' && i.text === 'Third')).toBe(false);
    expect(state().items.at(-1)).toMatchObject({ kind: 'notice', text: refusal });

    release();
    await Promise.all([first, second]);
    const answers = state().items.filter((i) => i.kind === 'assistant').map((i) => i.kind === 'assistant' && [i.run, i.text, i.streaming]);
    expect(answers).toEqual([['r1', 'Answer one.', false], ['r2', 'Answer two.', false]]);
    expect(state().items.find((i) => i.kind === 'user' && i.text === 'Second')).not.toHaveProperty('queued');
    expect([state().running, state().runs, state().status]).toEqual([false, {}, 'awaiting_input']);
    expect(state().items.some((i) => i.kind === 'error')).toBe(false);
    expect(consoleErrors).not.toHaveBeenCalled();
    consoleErrors.mockRestore();
  });
});

