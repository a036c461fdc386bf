import { describe, expect, it } from 'vitest';
import { completionFiring } from './completion.ts';
import { childEvaluation, evaluationCallReach, firesRealTriggers } from './evaluation-reach.ts';
import type { SessionRecord, TurnRecord } from './model.ts';

const mark = { runId: 'ev-1', caseId: 'answer/a' };
const root = {
  _id: 's1',
  depth: 0,
  agentId: 'a1',
  environment: 'main',
  workflow: 'answer',
  state: 'answer',
  variables: {},
  updatedAt: new Date(0),
} as unknown as SessionRecord;
const failed = { _id: 't1', status: 'failed', error: { code: 'model_refused', message: 'no' } } as TurnRecord;

describe("an evaluation's reach", () => {
  it('fires no completion trigger for an evaluation session; the same session outside one fires', () => {
    expect(firesRealTriggers(root)).toBe(true);
    expect(completionFiring(root, failed)).toMatchObject({ type: 'completion', sessionId: 's1', status: 'failed' });
    const evaluated = { ...root, evaluation: mark };
    expect(firesRealTriggers(evaluated)).toBe(false);
    expect(completionFiring(evaluated, failed)).toBeUndefined();
  });

  it("marks a child with its parent's run and case, and a child of another session with none", () => {
    expect(childEvaluation({ evaluation: mark })).toEqual({ evaluation: mark });
    expect(childEvaluation({})).toEqual({});
  });

  it('answers from a mock, sends a live mock or a read-only tool to the service, refuses anything else', async () => {
    const mocks = [
      { tool: 'crm/create_contact', input: { name: 'Ada' }, result: { id: 7 } },
      { tool: 'crm/create_contact', input: { name: 'Live' }, live: true as const },
      { tool: 'crm/delete_contact', error: 'not allowed' },
    ];
    const reach = (tool: string, input: unknown, readOnly = false) =>
      evaluationCallReach(mocks, { tool, input, readOnly: async () => readOnly });
    expect(await reach('crm/create_contact', { name: 'Ada' })).toEqual({ kind: 'mock', answer: { result: { id: 7 } } });
    expect(await reach('crm/delete_contact', {})).toEqual({ kind: 'mock', answer: { error: 'not allowed' } });
    expect(await reach('crm/create_contact', { name: 'Live' })).toEqual({ kind: 'service' });
    expect(await reach('semantic/execute_query', { sql: 'SELECT 1' }, true)).toEqual({ kind: 'service' });
    const refused = await reach('crm/create_contact', { name: 'Bob' });
    expect(refused.kind).toBe('refused');
    expect(refused.kind === 'refused' && refused.message).toMatch(
      /^crm\/create_contact was not called: .*add a mock \{tool: crm\/create_contact, input: …, result: …\}.*live/,
    );
  });
});
