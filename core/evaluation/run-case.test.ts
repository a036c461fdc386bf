/**
 * One case from its first step to its verdict, over a driver that plays a small session (the port the runtime
 * implements): actions taken in order, assertions seeing only what happened since the latest action, the first
 * failing step stopping the case, a refused action failing its step with the refusal, judge usage kept apart.
 * Source: docs/agent-format.md § Tests.
 */
import { describe, expect, it } from 'vitest';
import type { TestCase } from '../agent/documents-model.ts';
import type { ModelMessage } from '../ports/model-provider.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { CaseObservation } from './assertions.ts';
import type { EvaluationCase } from './cases.ts';
import type { GradeDeps } from './grade.ts';
import { type CaseAction, type CaseDriver, runCase } from './run-case.ts';

const at = new Date(0);

/**
 * A session that answers each message with `Echo: <message>` and parks on a decision in `review`; a decision
 * moves it to its target, which ends it when that is `done`. Records the driver calls.
 */
function playedSession(options: { refuseDecisions?: boolean } = {}): CaseDriver & { calls: string[] } {
  const calls: string[] = [];
  const messages: ModelMessage[] = [];
  const session: CaseObservation['session'] = {
    status: 'running',
    state: 'answer',
    trail: [{ state: 'answer', via: 'start', at }],
    pending: null,
    variables: {},
  };
  const take = (action: CaseAction | undefined) => {
    if (action && 'send' in action) {
      messages.push({ role: 'user', content: action.send });
      messages.push({ role: 'assistant', content: `Echo: ${action.send}` });
      session.state = 'review';
      session.trail.push({ state: 'review', via: 'advance', at });
      session.status = 'awaiting_decision';
      session.pending = { kind: 'decision', id: 'd', state: 'review', options: [] };
    } else if (action && 'decide' in action) {
      if (options.refuseDecisions || session.status !== 'awaiting_decision') {
        throw new PlatformError('not_awaiting_decision', 'The session does not wait for a decision.', { status: 409 });
      }
      session.state = action.decide.to;
      session.trail.push({ state: action.decide.to, via: 'decision', at });
      session.pending = null;
      session.status = action.decide.to === 'done' ? 'succeeded' : 'running';
    }
  };
  return {
    calls,
    open: async (evaluationCase, first) => {
      calls.push(`open ${evaluationCase.id} ${JSON.stringify(first ?? null)}`);
      take(first);
      return { sessionId: 'es-1' };
    },
    act: async (sessionId, action) => {
      calls.push(`act ${sessionId} ${JSON.stringify(action)}`);
      take(action);
    },
    settle: async (sessionId) => {
      calls.push(`settle ${sessionId}`);
      return { session: structuredClone(session), messages: [...messages] };
    },
  };
}

const judgeUsage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 };
const grade: GradeDeps = {
  presentVariables: [],
  judge: async () => ({ text: '{"score": 0.9, "reason": "fine"}', usage: judgeUsage }),
};
let ms = 0;
const clock = { now: () => new Date(ms += 5) };
const caseOf = (steps: TestCase['steps']): EvaluationCase => ({
  id: 'flights/review',
  workflow: 'flights',
  stem: 'review',
  path: 'workflows/flights/tests/review.test.yaml',
  case: { title: 'Review', steps },
});

describe('runCase', () => {
  it('passes a case whose every assertion holds, opening with its first action and settling after each', async () => {
    const driver = playedSession();
    const result = await runCase(
      { driver, grade, clock },
      caseOf([
        { send: 'hello' },
        { parked: 'decision' },
        { reply: { includes: 'Echo: hello' } },
        { grade: { rubric: 'Echoes.' } },
        { decide: { to: 'done' } },
        { succeeded: true },
        { reachedState: 'review' },
      ]),
    );
    expect(result).toMatchObject({ id: 'flights/review', title: 'Review', sessionId: 'es-1', passed: true });
    expect(result.failingStep).toBeUndefined();
    expect(result.steps.map((s) => `${s.index}:${s.kind}:${s.passed}`)).toEqual([
      '0:send:true',
      '1:parked:true',
      '2:reply:true',
      '3:grade:true',
      '4:decide:true',
      '5:succeeded:true',
      '6:reachedState:true',
    ]);
    expect(result.judgeUsage).toEqual(judgeUsage);
    expect(result.durationMs).toBeGreaterThan(0);
    expect(driver.calls).toEqual([
      'open flights/review {"send":"hello"}',
      'settle es-1',
      'act es-1 {"decide":{"to":"done"}}',
      'settle es-1',
    ]);
  });

  it('after an action, reply sees only what the session said since it', async () => {
    const result = await runCase(
      { driver: playedSession(), grade, clock },
      caseOf([
        { send: 'first' },
        { decide: { to: 'answer' } },
        { reply: { includes: 'Echo: first' } },
      ]),
    );
    expect(result.passed).toBe(false);
    expect(result.failingStep).toBe(2);
    expect(result.steps[2]!.result).toMatchObject({ expected: 'includes Echo: first', actual: 'no reply' });
  });

  it('stops at the first failing assertion, reporting what was expected and what happened', async () => {
    const driver = playedSession();
    const result = await runCase(
      { driver, grade, clock },
      caseOf([
        { send: 'hello' },
        { reachedState: 'done' },
        { decide: { to: 'done' } },
      ]),
    );
    expect(result).toMatchObject({ passed: false, failingStep: 1 });
    expect(result.steps).toHaveLength(2);
    expect(result.steps[1]!.result).toMatchObject({ actual: 'states reached: answer → review' });
    expect(driver.calls.some((c) => c.startsWith('act'))).toBe(false);
  });

  it('a refused action fails its step with the refusal; a refused opening fails step 0 with no session', async () => {
    const refused = await runCase(
      { driver: playedSession({ refuseDecisions: true }), grade, clock },
      caseOf([
        { send: 'hello' },
        { decide: { to: 'done' } },
        { succeeded: true },
      ]),
    );
    expect(refused).toMatchObject({ passed: false, failingStep: 1, sessionId: 'es-1' });
    expect(refused.steps[1]!.error).toEqual({
      code: 'not_awaiting_decision',
      message: 'The session does not wait for a decision.',
    });
    const driver = playedSession();
    driver.open = async () => {
      throw new PlatformError('spend_cap_reached', 'The daily spend cap of this environment is reached.');
    };
    const closed = await runCase({ driver, grade, clock }, caseOf([{ send: 'hello' }, { succeeded: true }]));
    expect(closed).toMatchObject({ passed: false, failingStep: 0 });
    expect(closed.sessionId).toBeUndefined();
    expect(closed.steps[0]).toMatchObject({ kind: 'send', error: { code: 'spend_cap_reached' } });
  });

  it('a case starting with an assertion opens with no action; an unexpected error says no more', async () => {
    const driver = playedSession();
    const result = await runCase({ driver, grade, clock }, caseOf([{ reachedState: 'answer' }]));
    expect(result.passed).toBe(true);
    expect(driver.calls[0]).toBe('open flights/review null');
    driver.settle = async () => {
      throw new Error('connection reset by the document store at 10.0.0.7');
    };
    const broken = await runCase({ driver, grade, clock }, caseOf([{ reachedState: 'answer' }]));
    expect(broken.steps[0]!.error).toEqual({
      code: 'internal_error',
      message: 'the platform failed to take the step; see the dispatcher log',
    });
  });
});
