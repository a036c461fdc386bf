/**
 * The assertions of an evaluation case, checked after each step against what the case's session shows: its status,
 * state and trail, what it is parked on, its variables and the messages of its thread. Each check says what was
 * expected and what happened (the state reached, the tool input, the reply text), so a failing case reads as a
 * report. `grade` (a judge model's score) is checked elsewhere: it needs a model call.
 *
 * Source: docs/agent-format.md § Tests (steps); issue "Evaluations" § Assertions.
 */
import { Value } from '@sinclair/typebox/value';
import type { Step } from '../agent/documents-model.ts';
import type { ModelMessage } from '../ports/model-provider.ts';
import { callName, inputContains } from '../session/evaluation-mocks.ts';
import type { SessionRecord } from '../session/model.ts';

/** What a case's session shows after a step: the session and its thread, oldest message first. */
export interface CaseObservation {
  session: Pick<SessionRecord, 'status' | 'state' | 'trail' | 'pending' | 'variables'> & {
    /** Why the session failed, when it did (a failing assertion then says so). */
    error?: SessionRecord['error'];
    /** Its usage and cost so far (a case reports the cost). */
    usage?: SessionRecord['usage'];
  };
  messages: ModelMessage[];
  /**
   * Index in `messages` of the first message of the latest action step (its prompt, decision or delivery): `reply`
   * and `calledTool` look at what the session did since then. Default 0 (the whole thread).
   */
  since?: number;
}

/** The assertion keys of a step (a step holding another key is an action). */
export const assertionKeys = [
  'succeeded',
  'failed',
  'parked',
  'reachedState',
  'calledTool',
  'reply',
  'variables',
  'grade',
] as const;
export type AssertionKey = typeof assertionKeys[number];

/** The outcome of one assertion: passed or not, with what was expected and what happened, both as short texts. */
export interface AssertionResult {
  assertion: AssertionKey;
  passed: boolean;
  expected: string;
  actual: string;
}

/** The longest piece of a reply, an input or a value quoted in a result (characters; longer is cut with `…`). */
export const QUOTE_CHARS = 300;

const quote = (value: unknown): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? 'nothing';
  return text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text;
};
const list = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** Which assertion a step holds, or undefined for an action step (`send`, `decide`, `deliver`). */
export function assertionOf(step: Step): AssertionKey | undefined {
  return assertionKeys.find((key) => step[key] !== undefined);
}

/** The assistant text of `messages` from index `since` on, messages joined by a blank line. */
export function replyText(messages: ModelMessage[], since = 0): string {
  return messages.slice(since).flatMap((m) => (m.role === 'assistant' && m.content ? [m.content] : [])).join('\n\n');
}

/**
 * Checks the assertion of `step` (a step with no assertion key throws: it is an action) against `observed`, except
 * `grade` (see ./rubric.ts).
 * @throws Error for an action step or a `grade` step (a programming error of the caller)
 */
export function checkAssertion(step: Step, observed: CaseObservation): AssertionResult {
  const result = checkOne(step, observed);
  const error = observed.session.error;
  if (result.passed || !error || observed.session.status !== 'failed') return result;
  return { ...result, actual: `${result.actual}; the session failed: ${error.code}: ${quote(error.message)}` };
}

function checkOne(step: Step, observed: CaseObservation): AssertionResult {
  const assertion = assertionOf(step);
  if (assertion === undefined || assertion === 'grade') {
    throw new Error(`checkAssertion takes an assertion other than grade, not ${JSON.stringify(Object.keys(step))}`);
  }
  const { session } = observed;
  const result = (passed: boolean, expected: string, actual: string): AssertionResult => ({
    assertion,
    passed,
    expected,
    actual,
  });
  const status = `status ${session.status} in state ${session.state}`;
  switch (assertion) {
    case 'succeeded':
    case 'failed':
      return result(session.status === assertion, `the session ${assertion}`, status);
    case 'parked':
      // A park on a decision is the status awaiting_decision, on input awaiting_input.
      return result(session.status === `awaiting_${step.parked}`, `parked on ${step.parked}`, status);
    case 'reachedState': {
      const reached = session.trail.map((entry) => entry.state);
      const actual = `states reached: ${reached.join(' → ') || 'none'}`;
      return result(reached.includes(step.reachedState!), `reached state ${step.reachedState}`, actual);
    }
    case 'calledTool':
      return checkCalledTool(step.calledTool!, observed);
    case 'reply':
      return checkReply(step.reply!, replyText(observed.messages, observed.since));
    case 'variables': {
      const wanted = step.variables as Record<string, unknown>;
      const differing = Object.entries(wanted).filter(([key, value]) => !Value.Equal(session.variables[key], value));
      const actual = differing.length === 0
        ? 'every value as expected'
        : differing.map(([key]) => `${key} = ${quote(session.variables[key] ?? null)}`).join(', ');
      return result(differing.length === 0, `variables ${quote(wanted)}`, actual);
    }
  }
}

function checkCalledTool(
  wanted: NonNullable<Step['calledTool']>,
  observed: CaseObservation,
): AssertionResult {
  const { tool, input } = typeof wanted === 'string' ? { tool: wanted, input: undefined } : wanted;
  const name = callName(tool);
  const calls = observed.messages.slice(observed.since ?? 0).flatMap((m) =>
    m.role === 'assistant' ? m.toolCalls ?? [] : []
  );
  const named = calls.filter((call) => call.name === name);
  const passed = named.some((call) => inputContains(call.input, input as Record<string, unknown> | undefined));
  const expected = input === undefined ? `a call of ${tool}` : `a call of ${tool} with input ${quote(input)}`;
  const actual = named.length > 0
    ? `${tool} called with ${named.map((call) => quote(call.input)).join('; ')}`
    : calls.length > 0
    ? `tools called: ${[...new Set(calls.map((call) => call.name))].join(', ')}`
    : 'no tool called';
  return { assertion: 'calledTool', passed, expected, actual };
}

function checkReply(wanted: NonNullable<Step['reply']>, text: string): AssertionResult {
  const lower = text.toLowerCase();
  const missing = list(wanted.includes).filter((piece) => !lower.includes(piece.toLowerCase()));
  const present = list(wanted.excludes).filter((piece) => lower.includes(piece.toLowerCase()));
  const expected = [
    ...list(wanted.includes).map((piece) => `includes ${quote(piece)}`),
    ...list(wanted.excludes).map((piece) => `excludes ${quote(piece)}`),
  ].join(', ') || 'any reply';
  const actual = text === '' ? 'no reply' : `the reply ${quote(text)}`;
  return { assertion: 'reply', passed: missing.length === 0 && present.length === 0, expected, actual };
}
