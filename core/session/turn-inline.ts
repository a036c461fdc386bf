/**
 * Turns with nothing to sandbox. A worker exists to hold code the platform does not control (spec/platform-service.md
 * § Rules 6): hook scripts, rubrics, tools and the model's turns. A turn whose every step is the platform's own needs
 * none: it enters a terminal state without instructions (the session ends, no model call) or a human state (the
 * session parks on its decision), with no `before` hooks to run on the way in, and it forwards nothing to a child
 * session. The dispatcher runs such a turn itself, with the same engine (./run-turn.ts) over the same store host, so
 * it records exactly what a worker's run of it would. Whether a turn qualifies is read from the turn's context (the
 * records and the deployed workflow, read in the trusted process), never from anything a caller or a worker sent.
 *
 * Source: spec/platform-service.md § Rules 6; docs/decisions.md D24 § 2 (a turn with nothing to sandbox).
 */
import { PlatformError } from '../ports/platform-error.ts';
import type { Clock } from '../ports/clock.ts';
import { runTurn } from './run-turn.ts';
import type { TurnContext, TurnHost, TurnOutcome } from './turn-host.ts';

/**
 * Whether turn `context` runs nothing the platform does not control, so that it needs no worker: the state it starts
 * in (a decision turn: the decision's `to`) is a human state, or a terminal state (no transitions) without
 * instructions; it has no `before` hooks unless the visit already entered it; and no child session waits for the
 * turn's input. Any other turn (a model call, a hook, a tool, a child) runs in a worker.
 *
 * Source: spec/platform-service.md § Rules 6; docs/decisions.md D24 § 2
 */
export function needsNoWorker(context: TurnContext): boolean {
  if (context.session.pending?.childSessionId) return false;
  const decision = context.kind === 'decision';
  const slug = decision ? context.input.decision?.to : context.session.state;
  const state = slug === undefined ? undefined : context.workflow.states[slug];
  if (!state) return false;
  const entered = !decision && context.session.visit.entered;
  if (!entered && state.before.length > 0) return false;
  if (state.type === 'human') return true;
  return state.transitions.length === 0 && (state.instructions ?? '').trim().length === 0;
}

/** The hooks of a turn run without a worker: none may run (a turn with hooks is never run so), so any call refuses. */
const noHooks = {
  run: (): Promise<never> =>
    Promise.reject(new PlatformError('worker_unavailable', 'A hook runs only in a worker; this turn has none.')),
};

/**
 * Runs turn `turnId` (of {@link needsNoWorker}) in this process with the engine over `host`: the store host of the
 * claimed turn, its writes fenced by the claim as a worker's would be. Its time comes from `clock`.
 * @returns how the turn ended (written by `host.endTurn`, as a worker's run writes it)
 * @throws what the host throws when it cannot write the turn's end (the caller fails the turn as for a worker)
 *
 * Source: docs/decisions.md D24 § 2
 */
export function runTurnInline(
  deps: { host: TurnHost; clock: Clock },
  turnId: string,
  context: TurnContext,
): Promise<TurnOutcome> {
  return runTurn({ host: deps.host, hooks: noHooks, now: () => deps.clock.now().getTime() }, turnId, context);
}
