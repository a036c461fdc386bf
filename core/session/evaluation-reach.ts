/**
 * What an evaluation's sessions may reach of the real world: one rule every firing path and the broker ask.
 *
 * - **Firings:** a session marked as an evaluation's (a case's session, or a child of one) fires nothing of the real
 *   environment: no completion trigger (nor anything a trigger would open) follows its turns. Its children are the
 *   evaluation's too, of the same run, case and build ({@link childEvaluation}).
 * - **Service tool calls** ({@link evaluationCallReach}): the first mock of the case matching the call answers it
 *   (`result` or `error`); a matching mock with `live: true` sends the call to the service; a call no mock matches goes
 *   to the service only when the service marks the tool `readOnlyHint: true` (MCP tool annotations: the semantic
 *   service's query tools), else it is refused, naming the tool and how to mock it. A call that reaches the service
 *   carries the organization's credential for the collection, as the organization's other sessions do.
 *
 * Source: issue "Hardening, round 3" § 2 (an evaluation touches the real world); docs/agent-format.md § Tests.
 */
import type { SessionRecord } from './model.ts';
import { answerFromMocks, type CaseMock, type MockAnswer } from './evaluation-mocks.ts';

/**
 * Whether a settled turn of `session` may fire the environment's triggers (completion firings): false for an
 * evaluation's sessions.
 */
export function firesRealTriggers(session: Pick<SessionRecord, 'evaluation'>): boolean {
  return session.evaluation === undefined;
}

/** The evaluation mark a child of `parent` carries: the parent's own (same run and case), or none. */
export function childEvaluation(parent: Pick<SessionRecord, 'evaluation'>): Pick<SessionRecord, 'evaluation'> {
  return parent.evaluation ? { evaluation: parent.evaluation } : {};
}

/** How an evaluation's service tool call is answered: from a mock, by the service, or refused with a message. */
export type EvaluationCallReach =
  | { kind: 'mock'; answer: Exclude<MockAnswer, { live: true }> }
  | { kind: 'service' }
  | { kind: 'refused'; message: string };

/**
 * How a service tool call of an evaluation's session is answered (see the module comment).
 * @param call - `tool`: `<collection>/<name>`; `readOnly`: the service's `readOnlyHint` for it (as the catalog offers
 *   it), asked only when no mock matches
 */
export async function evaluationCallReach(
  mocks: CaseMock[] | undefined,
  call: { tool: string; input: unknown; readOnly(): Promise<boolean> },
): Promise<EvaluationCallReach> {
  const answer = answerFromMocks(mocks, call.tool, call.input);
  if (answer !== undefined && 'live' in answer) return { kind: 'service' };
  if (answer !== undefined) return { kind: 'mock', answer };
  if (await call.readOnly()) return { kind: 'service' };
  return { kind: 'refused', message: unmockedCallMessage(call.tool) };
}

/**
 * The refusal of an evaluation's call that no mock answers, of a tool its service does not mark read-only: names
 * the tool, says what to add.
 */
export function unmockedCallMessage(tool: string): string {
  return `${tool} was not called: an evaluation answers service tools from its case's mocks and sends a service ` +
    `only calls of tools it marks read-only (readOnlyHint); no mock of this case matches the call's input: add a ` +
    `mock {tool: ${tool}, input: …, ` +
    `result: …} to the case, or {tool: ${tool}, input: …, live: true} to let this call reach the service with the ` +
    "organization's credential";
}
