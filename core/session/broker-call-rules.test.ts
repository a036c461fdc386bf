import { describe, expect, it } from 'vitest';
import {
  brokerSession as session,
  brokerWorkflow as workflow,
  ruleOf as rule,
} from '../../test/helpers/broker-workflow.ts';
import { childOpening, childResume, hookOperationViolation, toolCallViolation } from './broker-call-rules.ts';
import type { ChildRequest } from './turn-host.ts';

describe('tool call rules', () => {
  const call = (collection: unknown, name: unknown, input: unknown = {}) => ({ collection, name, input });
  const tool = (fields: Parameters<typeof session>[0], asked: ReturnType<typeof call>) =>
    rule(toolCallViolation(workflow, session(fields), asked));

  it("allow what the state's and the workflow's rules allow", () => {
    expect(
      toolCallViolation(workflow, session(), call('semantic', 'execute_query', { modelName: 'flights' })),
    ).toBeUndefined();
  });

  it('refuse a forbidden, guarded, inherited or unallowed tool, a human state, a bad name', () => {
    const forbidden = toolCallViolation(workflow, session(), call('semantic', 'request_improvement'));
    expect(forbidden).toMatchObject({
      rule: 'tool_rules',
      message: expect.stringContaining('semantic/request_improvement'),
    });
    expect(tool({}, call('semantic', 'execute_query', { modelName: 'secret' }))).toBe('tool_rules');
    expect(tool({ inheritedForbid: [{ tool: 'semantic/get_*' }] }, call('semantic', 'get_model'))).toBe('tool_rules');
    expect(tool({}, call('github', 'create_issue'))).toBe('tool_rules');
    expect(tool({ state: 'review' }, call('semantic', 'execute_query'))).toBe('tool_rules');
    expect(tool({}, call('semantic/execute_query', 'x'))).toBe('tool_rules');
    expect(tool({}, call({ $ne: null }, 'x'))).toBe('tool_rules');
  });
});

describe('workflow call rules', () => {
  const request = (fields: Partial<ChildRequest> = {}): ChildRequest => ({
    workflow: 'lookup',
    dispatchId: '1',
    arguments: { airline: 'AA' },
    inheritedForbid: [],
    ancestry: [],
    ...fields,
  });
  const open = (fields: Parameters<typeof session>[0], asked: ChildRequest, used: string[] = []) =>
    rule(childOpening(workflow, session(fields), asked, used));

  it("compute the child's inherited forbids and ancestry from the parent's records, not from the worker", () => {
    const parent = session({ inheritedForbid: [{ tool: 'github' }], ancestry: ['root'], depth: 1, dispatchId: '2' });
    const forged = request({ dispatchId: '2~3', inheritedForbid: [], ancestry: [] });
    expect(childOpening(workflow, parent, forged, ['2~1'])).toEqual({
      workflow: 'lookup',
      dispatchId: '2~3',
      arguments: { airline: 'AA' },
      ancestry: ['root', 'analyst'],
      inheritedForbid: [{ tool: 'semantic/request_improvement' }, { tool: 'github' }],
    });
  });

  it('refuse a workflow not callable, a cycle, too deep, a used or foreign dispatch id, trigger', () => {
    expect(open({}, request({ workflow: 'billing' }))).toBe('workflow_call');
    expect(open({}, request({ workflow: 'analyst' }))).toBe('workflow_call');
    expect(open({ depth: 2 }, request())).toBe('workflow_call');
    expect(open({}, request(), ['1'])).toBe('workflow_call');
    expect(open({ dispatchId: '2' }, request({ dispatchId: '1' }))).toBe('workflow_call');
    expect(open({}, request({ arguments: { trigger: { id: 'x' } } }))).toBe('locked_variable');
  });

  it('refuse a workflow call the rules forbid', () => {
    const closed = { ...workflow, tools: { ...workflow.tools, forbidAlways: [{ tool: 'platform_workflow_lookup' }] } };
    expect(rule(childOpening(closed, session(), request(), []))).toBe('tool_rules');
  });
});

describe('child resume rules', () => {
  const decisionTurn = { kind: 'decision' as const, input: { decision: { to: 'done', comment: 'Fine.', by: 'ada' } } };
  const parkedOnChild = { kind: 'decision', id: 'p', state: 'check', options: [], childSessionId: 'c1' };
  const parent = (pending: unknown = parkedOnChild) => ({
    session: { _id: 's1', pending: pending as never },
    turn: decisionTurn,
  });
  const child = (fields: Record<string, unknown> = {}) =>
    ({ _id: 'c1', parentId: 's1', status: 'awaiting_decision', ...fields }) as never;
  const own = { kind: 'decision', decision: { to: 'done', comment: 'Fine.', by: 'ada' } };

  it("resume the parked child this session waits on with the parent turn's own decision", () => {
    expect(childResume(parent(), child(), own)).toEqual(own);
  });

  it("refuse another decision, another session's child, a child not parked on, and a child no longer parked", () => {
    const forged = { kind: 'decision', decision: { to: 'done', by: 'ceo@example.com' } };
    expect(rule(childResume(parent(), child(), forged))).toBe('resume_parked_child');
    expect(rule(childResume(parent(), child({ parentId: 's2' }), own))).toBe('resume_parked_child');
    expect(rule(childResume(parent(null), child(), own))).toBe('resume_parked_child');
    expect(rule(childResume(parent(), child({ status: 'succeeded' }), own))).toBe('resume_parked_child');
    expect(rule(childResume(parent(), child({ status: 'awaiting_input' }), own))).toBe('resume_parked_child');
    expect(rule(childResume(parent(), null, own))).toBe('resume_parked_child');
  });
});

describe('hook rules', () => {
  it('give a hook no operation, naming only a plain operation name', () => {
    const refused = hookOperationViolation('turn.checkpoint');
    expect(refused).toMatchObject({
      rule: 'hook_no_operations',
      message: expect.stringContaining('"turn.checkpoint"'),
    });
    expect(hookOperationViolation('x'.repeat(200)).message).toContain('an operation');
  });
});
