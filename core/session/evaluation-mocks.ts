/**
 * The mocks of an evaluation session, answered in the trusted broker (./store-host.ts): a service tool call of a
 * session marked as an evaluation's (a case's session or a child of one) gets the result of the first mock of its
 * case whose tool matches and whose `input` the call's input contains (every key, equal values, key order aside),
 * or fails with the mock's `error`, or (`live: true`) goes to the service; what a call no mock matches may reach is
 * ./evaluation-reach.ts's rule.
 *
 * Source: docs/agent-format.md § Tests (mocks); issue "Evaluations" § Runs.
 */
import type { TestCase } from '../agent/documents-model.ts';
import { inputContains, modelToolName } from './rules.ts';

/** A mock of a case, as the agent format reads it. */
export type CaseMock = NonNullable<TestCase['mocks']>[number];

/** What a mock answers: a result, a failure with its message, or the service's own answer (`live: true`). */
export type MockAnswer = { result: unknown } | { error: string } | { live: true };

/** The model-facing name of a tool as a case names it (`semantic/execute_query` → `semantic__execute_query`). */
export function callName(tool: string): string {
  const slash = tool.indexOf('/');
  return slash < 0 ? tool : modelToolName(tool.slice(0, slash), tool.slice(slash + 1));
}

/** Whether `input` holds every key of `partial` with an equal value (./rules.ts, shared with the tool guards). */
export { inputContains };

/**
 * The answer of the first mock of `mocks` matching a call of `tool` (the model-facing name, e.g.
 * `semantic__execute_query`, or the catalog name `semantic/execute_query`) with `input`; undefined when none
 * matches. A mock with neither `result` nor `error` answers `null`.
 */
export function answerFromMocks(mocks: CaseMock[] | undefined, tool: string, input: unknown): MockAnswer | undefined {
  const name = callName(tool);
  const mock = (mocks ?? []).find((m) => callName(m.tool) === name && inputContains(input, m.input));
  if (mock === undefined) return undefined;
  if (mock.live === true) return { live: true };
  return mock.error !== undefined ? { error: mock.error } : { result: mock.result ?? null };
}
