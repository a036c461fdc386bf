/**
 * The assertions, mocks and case selection of evaluations, each kind once passing and once failing with what was
 * expected and what happened. Source: docs/agent-format.md § Tests.
 */
import { describe, expect, it } from 'vitest';
import type { Step } from '../agent/documents-model.ts';
import { validateAgentRepository } from '../agent/validate.ts';
import type { ModelMessage } from '../ports/model-provider.ts';
import { isPlatformError } from '../ports/platform-error.ts';
import { assertionOf, type CaseObservation, checkAssertion, QUOTE_CHARS } from './assertions.ts';
import { selectCases } from './cases.ts';
import { answerFromMocks } from '../session/evaluation-mocks.ts';
import { unmockedCallMessage } from '../session/evaluation-reach.ts';

const at = new Date(0);
const messages: ModelMessage[] = [
  { role: 'user', content: 'Which airline cancelled most?' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [{ id: 'c1', name: 'semantic__execute_query', input: { project: 'flights', limit: 5 } }],
  },
  { role: 'tool', results: [{ callId: 'c1', name: 'semantic__execute_query', output: { rows: [] } }] },
  { role: 'assistant', content: 'Delta Air Lines cancelled 1,204 flights.' },
];
const observed = (over: Partial<CaseObservation['session']> = {}, since = 0): CaseObservation => ({
  session: {
    status: 'awaiting_decision',
    state: 'review',
    trail: [{ state: 'answer', via: 'start', at }, { state: 'review', via: 'advance', at }],
    pending: { kind: 'decision', id: 'd1', state: 'review', options: [] },
    variables: { airline: 'Delta', count: 1204, nested: { a: 1, b: [1, 2] } },
    ...over,
  },
  messages,
  since,
});
const check = (step: Step, o = observed()) => checkAssertion(step, o);

describe('checkAssertion', () => {
  it('succeeded and failed compare the status, saying the state', () => {
    expect(check({ succeeded: true }, observed({ status: 'succeeded', state: 'done' }))).toMatchObject({
      passed: true,
    });
    expect(check({ failed: true })).toEqual({
      assertion: 'failed',
      passed: false,
      expected: 'the session failed',
      actual: 'status awaiting_decision in state review',
    });
  });

  it('a failing assertion on a failed session says why it failed', () => {
    const error = { code: 'model_not_configured', message: 'No models are configured: set CAIRN_MODEL_PROVIDER.' };
    expect(check({ calledTool: 'semantic/execute_query' }, observed({ status: 'failed', error }, 4))).toMatchObject({
      passed: false,
      actual: 'no tool called; the session failed: model_not_configured: No models are configured: set ' +
        'CAIRN_MODEL_PROVIDER.',
    });
    expect(check({ failed: true }, observed({ status: 'failed', error })).actual).toBe('status failed in state review');
  });

  it('parked names the kind of park', () => {
    expect(check({ parked: 'decision' }).passed).toBe(true);
    expect(check({ parked: 'input' })).toMatchObject({
      passed: false,
      actual: 'status awaiting_decision in state review',
    });
    expect(check({ parked: 'input' }, observed({ status: 'running', pending: null }))).toMatchObject({
      passed: false,
      actual: 'status running in state review',
    });
  });

  it('reachedState looks at every state of the trail, not only the current one', () => {
    expect(check({ reachedState: 'answer' }).passed).toBe(true);
    expect(check({ reachedState: 'done' })).toMatchObject({
      passed: false,
      expected: 'reached state done',
      actual: 'states reached: answer → review',
    });
  });

  it('calledTool matches the catalog name and a partial input, key order aside', () => {
    expect(check({ calledTool: 'semantic/execute_query' }).passed).toBe(true);
    expect(check({ calledTool: { tool: 'semantic/execute_query', input: { limit: 5 } } }).passed).toBe(true);
    expect(check({ calledTool: { tool: 'semantic/execute_query', input: { limit: 6 } } })).toMatchObject({
      passed: false,
      expected: 'a call of semantic/execute_query with input {"limit":6}',
      actual: 'semantic/execute_query called with {"project":"flights","limit":5}',
    });
    expect(check({ calledTool: 'semantic/list_projects' })).toMatchObject({
      passed: false,
      actual: 'tools called: semantic__execute_query',
    });
    // Only what the session did since the latest action counts.
    expect(check({ calledTool: 'semantic/execute_query' }, observed({}, 3))).toMatchObject({
      passed: false,
      actual: 'no tool called',
    });
  });

  it('reply checks includes and excludes, case aside, quoting the reply', () => {
    expect(check({ reply: { includes: ['delta', '1,204'], excludes: 'United' } }).passed).toBe(true);
    expect(check({ reply: { includes: 'United' } })).toEqual({
      assertion: 'reply',
      passed: false,
      expected: 'includes United',
      actual: 'the reply Delta Air Lines cancelled 1,204 flights.',
    });
    expect(check({ reply: { excludes: ['Delta'] } }).passed).toBe(false);
    expect(check({ reply: { includes: 'Delta' } }, observed({}, 4))).toMatchObject({
      passed: false,
      actual: 'no reply',
    });
  });

  it('variables compare deeply (key order aside) and name the values that differ', () => {
    expect(check({ variables: { airline: 'Delta', nested: { b: [1, 2], a: 1 } } }).passed).toBe(true);
    expect(check({ variables: { airline: 'United', count: 1204, missing: 1 } })).toMatchObject({
      passed: false,
      actual: 'airline = Delta, missing = null',
    });
  });

  it('cuts long quotes and refuses actions and grades', () => {
    const long = 'x'.repeat(QUOTE_CHARS + 50);
    const result = check({ reply: { includes: long } });
    expect(result.expected.length).toBeLessThan(QUOTE_CHARS + 20);
    expect(result.expected.endsWith('…')).toBe(true);
    expect(() => check({ send: 'hello' })).toThrow(/assertion other than grade/);
    expect(() => check({ grade: { rubric: 'Polite.' } })).toThrow(/assertion other than grade/);
    expect(assertionOf({ send: 'hello' })).toBeUndefined();
    expect(assertionOf({ grade: { rubric: 'Polite.' } })).toBe('grade');
  });
});

describe('answerFromMocks', () => {
  const mocks = [
    { tool: 'semantic/execute_query', input: { project: 'flights' }, result: { rows: [[1]] } },
    { tool: 'semantic/execute_query', error: 'the warehouse is down' },
    { tool: 'github/create_issue', input: { title: 'x' } },
  ];

  it('answers from the first mock whose tool matches and whose input the call contains', () => {
    expect(answerFromMocks(mocks, 'semantic__execute_query', { project: 'flights', limit: 1 })).toEqual({
      result: { rows: [[1]] },
    });
    expect(answerFromMocks(mocks, 'semantic/execute_query', { project: 'other' })).toEqual({
      error: 'the warehouse is down',
    });
    expect(answerFromMocks(mocks, 'github__create_issue', { title: 'x' })).toEqual({ result: null });
  });

  it('answers nothing for a tool or input no mock matches, and the refusal says what to add', () => {
    expect(answerFromMocks(mocks, 'github__create_issue', { title: 'y' })).toBeUndefined();
    expect(answerFromMocks(mocks, 'github__create_issue', 'not an object')).toBeUndefined();
    expect(answerFromMocks(undefined, 'semantic__execute_query', {})).toBeUndefined();
    expect(unmockedCallMessage('github/create_issue')).toMatch(/no mock of this case matches.*add a mock/);
  });
});

describe('selectCases', () => {
  const workflow = [
    'title: Flights',
    'states:',
    '  answer:',
    '    triggers:',
    '      chat: {}',
    '    transitions:',
    '      - to: done',
    '        description: Done.',
    '  done: {}',
  ].join('\n');
  const testCase = (title: string) => `title: ${title}\nsteps:\n  - send: hello\n  - reachedState: done\n`;
  const files = [
    { path: 'AGENTS.md', text: '---\nname: flights\ndescription: Flights.\n---\nAnswer.\n' },
    { path: 'workflows/flights/workflow.yaml', text: workflow },
    { path: 'workflows/flights/tests/b-second.test.yaml', text: testCase('Second') },
    { path: 'workflows/flights/tests/a-first.test.yaml', text: testCase('First') },
    {
      path: 'workflows/other/workflow.yaml',
      text: workflow.replace('Flights', 'Other').replace('chat: {}', 'ask: {type: chat}'),
    },
    { path: 'workflows/other/tests/a-first.test.yaml', text: testCase('Other first') },
  ];

  it('reads every case of a valid agent, ordered by workflow then name, and narrows to a workflow or a case', () => {
    expect(validateAgentRepository(files).problems).toEqual([]);
    expect(selectCases(files).map((c) => c.id)).toEqual(['flights/a-first', 'flights/b-second', 'other/a-first']);
    expect(selectCases(files)[0]).toMatchObject({ workflow: 'flights', stem: 'a-first', case: { title: 'First' } });
    expect(selectCases(files, { workflow: 'other' }).map((c) => c.id)).toEqual(['other/a-first']);
    expect(selectCases(files, { stem: 'a-first' }).map((c) => c.id)).toEqual(['flights/a-first', 'other/a-first']);
    expect(selectCases(files, { workflow: 'flights', stem: 'b-second' }).map((c) => c.case.title)).toEqual([
      'Second',
    ]);
  });

  it('a selection matching nothing is not_found listing the cases; an agent without cases is invalid_request', () => {
    const none = () => selectCases(files, { workflow: 'flights', stem: 'missing' });
    expect(none).toThrow('no evaluation case matches workflow flights, case missing; the cases are flights/a-first');
    try {
      none();
    } catch (error) {
      expect(isPlatformError(error, 'not_found') && error.status).toBe(404);
    }
    expect(() => selectCases(files.slice(0, 2))).toThrow(/has no evaluation cases: add workflows/);
  });
});
