/**
 * A chat over the memory stores whose turns run for real through the store host (the broker's checks included),
 * with a scripted model: the double-texting tests of the session and the AG-UI stream (docs/decisions.md D27 § 1).
 * Workflow `chat`: agent state `talk` (to `deep` or the human state `review`), agent state `deep` (back to `talk`).
 * Built on the shared set-up of ./store-turns.ts.
 */
import { expect } from 'vitest';
import type { ModelEvent, ModelProvider } from '../../core/ports/model-provider.ts';
import { sendChatMessage } from '../../core/session/chat-queue.ts';
import { runTurn } from '../../core/session/run-turn.ts';
import { readThread, sessionsOf, turnsOf } from '../../core/session/session-store.ts';
import { startSession } from '../../core/session/session-start.ts';
import type { WorkflowView } from '../../core/session/workflow-view.ts';
import { brokerState, testWorkflow } from './broker-workflow.ts';
import { storeTurns } from './store-turns.ts';

export const chat: WorkflowView = testWorkflow('chat', {
  talk: brokerState('talk', {
    triggers: ['manual'],
    transitions: [{ to: 'deep', description: 'Go deeper.' }, { to: 'review', description: 'Ask a person.' }],
  }),
  deep: brokerState('deep', { transitions: [{ to: 'talk', description: 'Back.' }] }),
  review: brokerState('review', { type: 'human', transitions: [{ to: 'talk', description: 'Back.' }] }),
});

/** A thread as `role:text` lines (`tool:tools` for tool results). */
export const lines = (records: { message: { role: string; content?: unknown } }[]) =>
  records.map(({ message: m }) => `${m.role}:${typeof m.content === 'string' ? m.content : 'tools'}`);

const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
/** One model call of the script: runs when the call starts (e.g. sends a message meanwhile), then answers. */
export type Step = () => Promise<{ text: string } | { advance: string }>;

export function chatTurns() {
  const script: Step[] = [];
  let calls = 0;
  /** A ModelProvider fake (a port): each call takes the next step of the script; with none left it replies. */
  const model: ModelProvider = {
    async *stream(): AsyncIterable<ModelEvent> {
      calls += 1;
      const answer = await (script.shift() ?? (async () => ({ text: `reply ${calls}` })))();
      if ('text' in answer) yield { type: 'text', text: answer.text };
      else {
        const input = { to: answer.advance, reason: 'scripted' };
        yield { type: 'tool-call', call: { id: `c${calls}`, name: 'platform_advance', input } };
      }
      yield { type: 'finish', reason: 'text' in answer ? 'stop' : 'tool-calls', usage };
    },
  };
  const base = storeTurns({ views: { chat }, models: model });
  const { store, deps, queue, later } = base;
  /** Runs the next queued turn as a dispatcher would: claimed, fenced, the worker stopped when interrupted. */
  const runQueued = async () => {
    const { turnId, host } = await base.claimQueued();
    await runTurn({ host, now: () => store.clock.now().getTime() }, turnId);
    return (await turnsOf(store).findOne({ _id: turnId }))!;
  };
  const open = async () => {
    const start = { agent: 'a', environment: 'main', workflow: 'chat', message: 'hello' };
    const { session } = await startSession(deps, caller, start);
    expect(await runQueued()).toMatchObject({ status: 'awaiting_input' });
    return session._id;
  };
  const send = (sessionId: string, text: string, multitask: 'reject' | 'enqueue' | 'interrupt' | 'rollback') =>
    sendChatMessage(deps, sessionId, { text, multitask });
  const session = async (id: string) => (await sessionsOf(store).findOne({ _id: id }))!;
  const thread = async (id: string) => lines(await readThread(store, await session(id)));
  return { deps, store, queue, script, runQueued, open, send, session, thread, later };
}

/** The member every call is made as. */
export const caller = { subject: 'u1', email: 'u1@example.test' };
