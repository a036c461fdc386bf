/**
 * The Chat page's transcript rules (web/src/pages/platform/chat/transcript.ts) over AG-UI event sequences as the
 * endpoint emits them (core/connection/agui-stream.ts): streamed text accumulates into one assistant message; child
 * sessions become sub-workflow blocks (nested by parent dispatch id) whose text never enters the assistant's
 * messages; a decision interrupt shows its options; a wait shows what it waits for and until when; RUN_ERROR is an
 * error; a chat opened from history is rebuilt from stored messages with its pending decision.
 */
import { describe, expect, it } from 'vitest';
import { applyEvent, chatEnded, emptyTranscript, fromStoredMessages, pendingDecision, type ChatEvent, type Transcript } from '../../web/src/pages/platform/chat/transcript.ts';

const fold = (events: ChatEvent[], start: Transcript = emptyTranscript()) => events.reduce(applyEvent, start);
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
});
