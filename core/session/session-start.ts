/**
 * Starting a root session of a published workflow: the checks every start makes before anything is written (the
 * workflow not disabled, its spend caps, the firing arguments), then the session opened at its trigger's entry state
 * with its first turn queued (the session's insert carries the turn as its outbox: ./queued-turns.ts).
 *
 * Source: spec/platform-service.md § Session facts named; docs/decisions.md D7 § Sessions and turns, D17 § 5.
 */
import { PlatformError } from '../ports/platform-error.ts';
import type { SessionRecord, SessionValue, TurnRecord } from './model.ts';
import { checkAttributes } from './rules.ts';
import { openSessionWithTurn } from './queued-turns.ts';
import { checkSpendCaps, type SpendScope } from './spend.ts';
import { entryStateOf, type WorkflowView } from './workflow-view.ts';
import type { ResolvedWorkflow, SessionCaller, SessionDeps, TurnQueueDeps } from './session-access.ts';

/** Options of {@link startSession}. */
export interface StartOptions {
  orgId?: string;
  agent: string;
  environment: string;
  workflow: string;
  trigger?: string;
  message?: string;
  /** Firing arguments: locked variables of the session. */
  variables?: Record<string, SessionValue>;
}

/**
 * Opens a session at the entry state of `trigger` (default: its manual trigger) and queues its first turn (the
 * session's insert carries the turn as its outbox: ./queued-turns.ts).
 * @throws PlatformError `workflow_disabled` (409), `spend_cap_reached` (429), `trigger_not_found` (404),
 *   `invalid_attribute` (400), `queue_unavailable` (503: the queue store refused the turn; nothing is left)
 */
export async function startSession(
  deps: SessionDeps,
  caller: SessionCaller,
  options: StartOptions,
): Promise<{ session: SessionRecord; turn: TurnRecord }> {
  const resolved = await deps.resolveWorkflow(caller, options);
  await deps.requireRole(caller, resolved.orgId, resolved.agentId, 'user');
  return openAtTrigger(deps, { ...resolved, workflow: options.workflow }, options);
}

/** A published workflow a root session opens on: its scope, build and the engine's view of it. */
export type OpenTarget = ResolvedWorkflow & { workflow: string };

/**
 * The checks every start of a root session of `target` makes before anything is written: the workflow not disabled,
 * its spend caps not reached. Shared by {@link openAtTrigger} and an evaluation case opened by a delivery.
 * @returns the spend scope of `target`
 * @throws PlatformError `workflow_disabled` (409), `spend_cap_reached` (429)
 */
export async function checkStart(
  deps: Pick<TurnQueueDeps, 'docs' | 'clock'>,
  target: Pick<OpenTarget, 'orgId' | 'agentId' | 'environment' | 'workflow'> & { view: Pick<WorkflowView, 'disabled'> },
): Promise<SpendScope> {
  if (target.view.disabled) {
    throw new PlatformError(
      'workflow_disabled',
      `Workflow "${target.workflow}" is disabled in environment "${target.environment}": it takes no new turns.`,
      { status: 409 },
    );
  }
  const scope = {
    orgId: target.orgId,
    agentId: target.agentId,
    environment: target.environment,
    workflow: target.workflow,
  };
  await checkSpendCaps(deps, scope);
  return scope;
}

/**
 * Opens a root session of `target` at the entry state of `options.trigger` (default: its manual trigger) with the
 * firing arguments `variables` (locked), and queues its first turn (`message`, if any): the checks every start
 * makes (the workflow not disabled, the spend caps, the variables' names and values). Shared by
 * {@link startSession} and evaluation cases (core/evaluation, `evaluation` marking the session).
 * @throws PlatformError `workflow_disabled` (409), `spend_cap_reached` (429), `trigger_not_found` (404),
 *   `invalid_attribute` (400), `queue_unavailable` (503)
 */
export async function openAtTrigger(
  deps: TurnQueueDeps,
  target: OpenTarget,
  options: Pick<StartOptions, 'trigger' | 'message' | 'variables'> & Pick<SessionRecord, 'evaluation'>,
): Promise<{ session: SessionRecord; turn: TurnRecord }> {
  const scope = await checkStart(deps, target);
  const entry = entryStateOf(target.view, options.trigger);
  const variables = checkAttributes(options.variables ?? {}, {}) as Record<string, SessionValue>;
  return openSessionWithTurn(
    deps,
    {
      ...scope,
      buildId: target.buildId,
      commitId: target.commitId,
      state: entry.state,
      trigger: entry.trigger,
      variables: { ...variables, trigger: { id: entry.trigger, arguments: variables } } as never,
      lockedVariables: [...Object.keys(variables), 'trigger'],
      depth: 0,
      inheritedForbid: [],
      ...(options.evaluation ? { evaluation: options.evaluation } : {}),
    },
    'prompt',
    options.message === undefined ? {} : { message: options.message },
  );
}
