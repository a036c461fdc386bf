/**
 * The mocks of an evaluation case: a service tool call whose input contains every key of a mock's `input` with
 * equal values gets the mock's `result` (or fails with its `error`); the first matching mock, in the case's order,
 * answers. A call no mock answers is refused in an evaluation (an evaluation must not write to the world by
 * accident).
 *
 * Source: docs/agent-format.md § Tests (mocks); issue "Evaluations" § Runs.
 */
import type { TestCase } from '../agent/documents-model.ts';
import { callName, inputContains } from './assertions.ts';

/** A mock of a case, as the agent format reads it. */
export type CaseMock = NonNullable<TestCase['mocks']>[number];

/** What a mock answers: a result, or a failure with its message. */
export type MockAnswer = { result: unknown } | { error: string };

/**
 * The answer of the first mock of `mocks` matching a call of `tool` (the model-facing name, e.g.
 * `semantic__execute_query`, or the catalog name `semantic/execute_query`) with `input`; undefined when none
 * matches. A mock with neither `result` nor `error` answers `null`.
 */
export function answerFromMocks(mocks: CaseMock[] | undefined, tool: string, input: unknown): MockAnswer | undefined {
  const name = callName(tool);
  const mock = (mocks ?? []).find((m) => callName(m.tool) === name && inputContains(input, m.input));
  if (mock === undefined) return undefined;
  return mock.error !== undefined ? { error: mock.error } : { result: mock.result ?? null };
}

/**
 * The message of a service call refused in an evaluation because no mock of the case answers it: names the tool
 * and says what to add.
 */
export function unmockedCallMessage(tool: string): string {
  return `${tool} was not called: an evaluation answers service tools only from the case's mocks, and no mock of ` +
    `this case matches the call's input; add a mock {tool: ${tool}, input: …, result: …} to the case`;
}
