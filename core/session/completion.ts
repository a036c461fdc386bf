/**
 * Completion firings: after a root session's turn ends succeeded, or failed after it had started (never after a
 * member stopped it), a completion trigger of another workflow of the same environment that names this workflow
 * fires with the finished session and how its turn ended. The firing opens a session of the triggered workflow at
 * the state declaring the trigger, with the firing as its locked `trigger` variable.
 *
 * Source: spec/platform-service.md § What the service does (completion trigger); docs/agent-format.md § Triggers
 * (completion: workflow); docs/decisions.md D7 § Sessions and turns (a completion firing carries the finished session
 * and how its
 * turn ended).
 */
import type { SessionRecord, TurnRecord } from './model.ts';
import { firesRealTriggers } from './evaluation-reach.ts';
import { openFiredSession } from './session-opening.ts';
import type { SessionStoreDeps } from './session-store.ts';
import type { WorkflowView } from './workflow-view.ts';

/** The payload of a completion firing. */
export interface CompletionFiring {
  type: 'completion';
  agentId: string;
  environment: string;
  /** The workflow whose session finished its turn. */
  workflow: string;
  sessionId: string;
  turnId: string;
  /** How the turn ended: succeeded or failed. */
  status: 'succeeded' | 'failed';
  error: { code: string; message: string } | null;
  /** The session's state when the turn ended. */
  state: string;
  variables: Record<string, unknown>;
  endedAt: string;
}

/**
 * The firing a settled turn gives, or undefined when none may fire (an evaluation's session: ./evaluation-reach.ts;
 * a child session; a cancelled or parked turn).
 */
export function completionFiring(session: SessionRecord, turn: TurnRecord): CompletionFiring | undefined {
  if (!firesRealTriggers(session)) return undefined;
  if (session.depth !== 0 || (turn.status !== 'succeeded' && turn.status !== 'failed')) return undefined;
  return {
    type: 'completion',
    agentId: session.agentId,
    environment: session.environment,
    workflow: session.workflow,
    sessionId: session._id,
    turnId: turn._id,
    status: turn.status,
    error: turn.error,
    state: session.state,
    variables: session.variables,
    endedAt: (turn.endedAt ?? session.updatedAt).toISOString(),
  };
}

/** A workflow of the environment's published build with the completion triggers it declares. */
export interface CompletionTarget {
  view: WorkflowView;
  triggers: { id: string; state: string; workflow: string }[];
}

/**
 * Opens one session per completion trigger that names the firing's workflow, each with a queued `delivery` turn,
 * once per finished turn and trigger: run again (a stalled `completion` job), it opens nothing new.
 * @returns the ids of the sessions opened (by this run)
 */
export async function fireCompletion(
  deps: SessionStoreDeps & { enqueueTurn(turnId: string): Promise<void> },
  firing: CompletionFiring,
  published: { orgId: string; buildId: string; commitId: string; targets: CompletionTarget[] },
): Promise<string[]> {
  const opened: string[] = [];
  for (const target of published.targets) {
    for (
      const trigger of target.triggers.filter((t) =>
        t.workflow === firing.workflow && target.view.slug !== firing.workflow
      )
    ) {
      if (target.view.disabled) continue;
      const { session, outcome } = await openFiredSession(deps, {
        orgId: published.orgId,
        agentId: firing.agentId,
        environment: firing.environment,
        workflow: target.view.slug,
        buildId: published.buildId,
        commitId: published.commitId,
        state: trigger.state,
        trigger: { id: trigger.id, type: 'completion' },
      }, {
        payload: { ...firing },
        message: `Workflow ${firing.workflow} finished a turn: ${firing.status}${
          firing.error ? ` (${firing.error.code}: ${firing.error.message})` : ''
        }. Session ${firing.sessionId}; the firing is in the variable "trigger".`,
        // One session per finished turn and trigger, however often the completion job runs (a stalled job).
        firingKey: JSON.stringify(['completion', firing.turnId, target.view.slug, trigger.id]),
      });
      if (outcome === 'opened') opened.push(session._id);
    }
  }
  return opened;
}
