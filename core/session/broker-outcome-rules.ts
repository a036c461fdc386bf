/**
 * The broker's rule for how a worker ends a turn: only with an outcome the engine can reach from the recorded
 * session (never `queued`, `running` or `cancelled`). Pure; see ./broker-rules.ts for the other rules.
 *
 * Source: docs/decisions.md D17 § 4 (endTurn accepts only the outcomes the engine can reach from the recorded state).
 */
import type { BrokerViolation } from './broker-rules.ts';
import type { SessionRecord } from './model.ts';
import type { TurnOutcome } from './turn-host.ts';
import type { WorkflowView } from './workflow-view.ts';

type Found = BrokerViolation | undefined;
const violation = (message: string): BrokerViolation => ({ rule: 'reachable_outcome', message });
const isObject = (value: unknown): value is Record<string, unknown> => (
  value !== null && typeof value === 'object' && !Array.isArray(value)
);

/** The session as the outcome rules read it (after the turn's checkpoints). */
export interface OutcomeFacts {
  workflow: WorkflowView;
  session: Pick<SessionRecord, 'state' | 'pending'>;
}

/** Statuses a turn can end with (never `queued`, `running` or `cancelled`: only a member cancels). */
export const reachableOutcomes = ['succeeded', 'failed', 'awaiting_decision', 'awaiting_input'] as const;

/**
 * Why `outcome` may not settle the turn, or undefined: `succeeded` needs a terminal active state and nothing
 * pending, `awaiting_decision`/`awaiting_input` a recorded pending decision/input, `failed` an error.
 * Source: docs/decisions.md D17 § 4 (endTurn accepts only the outcomes the engine can reach from the recorded state).
 */
export function outcomeViolation(facts: OutcomeFacts, outcome: TurnOutcome): Found {
  const status: unknown = isObject(outcome) ? outcome.status : undefined;
  if (!(reachableOutcomes as readonly unknown[]).includes(status)) {
    const named = JSON.stringify(typeof status === 'string' ? status.slice(0, 40) : typeof status);
    return violation(`a turn ends ${reachableOutcomes.join(', ')}; never ${named}`);
  }
  const { session, workflow } = facts;
  const pending = session.pending;
  const state = workflow.states[session.state];
  if (status === 'succeeded' && (!state || state.transitions.length > 0 || pending)) {
    const why = `the session is in state "${session.state}", which is not terminal: it cannot end succeeded`;
    return violation(why);
  }
  if (status === 'awaiting_decision' && pending?.kind !== 'decision') {
    return violation('the session has no pending decision: it cannot await one');
  }
  if (status === 'awaiting_input' && pending?.kind !== 'input') {
    return violation('the session has no pending input: it cannot await input');
  }
  const error: unknown = outcome.error;
  const described = isObject(error) && typeof error.code === 'string' && typeof error.message === 'string';
  if (status === 'failed' && !described) {
    return violation('a failed turn carries its error (code and message)');
  }
  return undefined;
}
