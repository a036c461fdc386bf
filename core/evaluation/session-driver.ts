/**
 * The CaseDriver on the real runtime: a case's session is opened on the run's build at the case's trigger with the
 * checks of every start (core/session `openAtTrigger`: the workflow not disabled, the spend caps, the variables),
 * marked with the run and the case; it belongs to no member. `send` opens it with the message or answers a session
 * waiting for input; `decide` takes the pending decision. Turns go through the turn queue and run in turn workers
 * like any other; the driver waits for the session to settle by reading it until no turn runs.
 *
 * Source: issue "Evaluations" § Runs; docs/agent-format.md § Tests.
 */
import { PlatformError } from '../ports/platform-error.ts';
import type { SessionValue } from '../session/model.ts';
import { readThread, sessionsOf } from '../session/session-store.ts';
import { deliverFiring, type FiringTarget, openFiredSession } from '../session/firings.ts';
import { checkStart, openAtTrigger, takeDecision, takeReply, type TurnQueueDeps } from '../session/sessions.ts';
import type { WorkflowView } from '../session/workflow-view.ts';
import type { EvaluationCase } from './cases.ts';
import type { EvaluationRunRecord } from './model.ts';
import type { CaseAction, CaseDriver } from './run-case.ts';

/** What the driver needs: the turn queue's stores, the build's workflows, a pause, and how long a step may take. */
export interface SessionDriverDeps extends TurnQueueDeps {
  workflowOf(buildId: string, slug: string): Promise<WorkflowView>;
  /** The triggers of workflow `slug` of build `buildId` (for `deliver` steps). */
  triggersOf(buildId: string, slug: string): Promise<CaseTrigger[]>;
  sleep(ms: number): Promise<void>;
  /** How long a step may take before its case fails (ms). */
  settleTimeoutMs: number;
}

/** How often a settling session is read (ms). */
export const SETTLE_POLL_MS = 100;

/** Who a case's decisions are taken by, on the session's trail. */
const EVALUATION_ACTOR = 'evaluation';

/** The trigger kinds a `deliver` step fires. */
const DELIVERED_KINDS = ['webhook', 'callback'];

/** A trigger of the case's workflow: its id, kind and the state it enters. */
export interface CaseTrigger {
  id: string;
  type: string;
  state: string;
}

/**
 * The trigger a case's `deliver` steps fire: the case's `trigger` (a webhook or callback trigger), else the
 * workflow's first webhook or callback trigger.
 * @throws PlatformError `invalid_request` (400) when there is none, or the case's trigger is of another kind
 */
export function deliveredTrigger(triggers: CaseTrigger[], evaluationCase: EvaluationCase): CaseTrigger {
  const named = evaluationCase.case.trigger;
  const found = named === undefined
    ? triggers.find((t) => DELIVERED_KINDS.includes(t.type))
    : triggers.find((t) => t.id === named);
  if (found && DELIVERED_KINDS.includes(found.type)) return found;
  const why = found
    ? `its trigger "${found.id}" is a ${found.type} trigger`
    : named === undefined
    ? `workflow "${evaluationCase.workflow}" declares none`
    : `workflow "${evaluationCase.workflow}" declares no trigger "${named}"`;
  throw new PlatformError(
    'invalid_request',
    `deliver fires a webhook or callback trigger, but ${why}; name one with the case's trigger key`,
    { status: 400 },
  );
}

/**
 * The payload of the `n`-th delivery of a case: a webhook's fields by default (POST, JSON, no query, no body), then
 * the step's mapping over them; `deliveryId` names the run, the case and `n`.
 */
export function deliveryPayload(
  trigger: CaseTrigger,
  mapping: Record<string, unknown>,
  at: { runId: string; caseId: string; n: number },
): Record<string, unknown> {
  const deliveryId = `${at.runId}/${at.caseId}/${at.n}`;
  const webhook = {
    method: 'POST',
    contentType: 'application/json',
    userAgent: 'cairn-evaluation',
    requestId: null,
    query: {},
    body: null,
  };
  return { deliveryId, ...(trigger.type === 'webhook' ? webhook : {}), ...mapping };
}

/** The driver of `evaluationCase` of `run`. */
export function sessionDriver(
  deps: SessionDriverDeps,
  run: Pick<EvaluationRunRecord, '_id' | 'orgId' | 'agentId' | 'environment' | 'buildId' | 'commitId'>,
  evaluationCase: EvaluationCase,
): CaseDriver {
  const loaded = async (sessionId: string) => {
    const session = await sessionsOf(deps).findOne({ _id: sessionId });
    if (!session) throw new PlatformError('not_found', `the case's session ${sessionId} is gone`, { status: 404 });
    return session;
  };
  const mark = {
    runId: run._id,
    caseId: evaluationCase.id,
    ...(evaluationCase.case.mocks ? { mocks: evaluationCase.case.mocks } : {}),
  };
  let delivered = 0;
  /** The target and firing of the case's next `deliver` step. */
  const delivery = async (mapping: Record<string, unknown>) => {
    const trigger = deliveredTrigger(await deps.triggersOf(run.buildId, evaluationCase.workflow), evaluationCase);
    delivered += 1;
    const payload = deliveryPayload(trigger, mapping, { runId: run._id, caseId: evaluationCase.id, n: delivered });
    const target: FiringTarget = {
      orgId: run.orgId,
      agentId: run.agentId,
      environment: run.environment,
      buildId: run.buildId,
      commitId: run.commitId,
      workflow: evaluationCase.workflow,
      state: trigger.state,
      trigger: { id: trigger.id, type: trigger.type },
    };
    const message = `A ${trigger.type} delivery (${String(payload.deliveryId)}) arrived; it is in the variable ` +
      '"trigger".';
    return { target, firing: { payload, message, evaluation: mark } };
  };
  return {
    async open(_case, first: CaseAction | undefined) {
      const view = await deps.workflowOf(run.buildId, evaluationCase.workflow);
      if (first !== undefined && 'deliver' in first) {
        // A delivery opens the session as its trigger's firing would (the checks of every start made first).
        await checkStart(deps, { ...run, workflow: evaluationCase.workflow, view });
        const { target, firing } = await delivery(first.deliver);
        const { session } = await openFiredSession(deps, target, firing);
        return { sessionId: session._id };
      }
      const { session } = await openAtTrigger(deps, {
        orgId: run.orgId,
        agentId: run.agentId,
        environment: run.environment,
        workflow: evaluationCase.workflow,
        buildId: run.buildId,
        commitId: run.commitId,
        view,
      }, {
        ...(evaluationCase.case.trigger ? { trigger: evaluationCase.case.trigger } : {}),
        variables: (evaluationCase.case.variables ?? {}) as Record<string, SessionValue>,
        ...(first !== undefined && 'send' in first ? { message: first.send } : {}),
        evaluation: mark,
      });
      return { sessionId: session._id };
    },
    async act(sessionId, action) {
      const session = await loaded(sessionId);
      if ('deliver' in action) {
        const turnId = await deliverFiring(deps, session, await delivery(action.deliver));
        if (turnId === undefined) {
          throw new PlatformError(
            'session_busy',
            `deliver needs the session to await input, but it is ${session.status.replace('_', ' ')}`,
            { status: 409 },
          );
        }
      } else if ('send' in action) await takeReply(deps, session, action.send);
      else await takeDecision(deps, session, { ...action.decide, channel: 'evaluation' }, EVALUATION_ACTOR);
    },
    async settle(sessionId) {
      const started = deps.clock.now().getTime();
      for (;;) {
        const session = await loaded(sessionId);
        if (session.status !== 'running') {
          const messages = (await readThread(deps, session)).map((m) => m.message);
          return { session, messages };
        }
        if (deps.clock.now().getTime() - started > deps.settleTimeoutMs) {
          throw new PlatformError(
            'step_timeout',
            `the session was still running after ${Math.round(deps.settleTimeoutMs / 1000)} s`,
            { status: 504 },
          );
        }
        await deps.sleep(SETTLE_POLL_MS);
      }
    },
  };
}
