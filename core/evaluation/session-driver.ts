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
import type { FiringTarget } from '../session/firing-model.ts';
import { deliverFiring } from '../session/firing-delivery.ts';
import { openFiredSession } from '../session/session-opening.ts';
import { checkStart, openAtTrigger } from '../session/session-start.ts';
import { takeDecision, takeReply } from '../session/sessions.ts';
import type { TurnQueueDeps } from '../session/session-access.ts';
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

/** The run a case's session belongs to. */
type DriverRun = Pick<EvaluationRunRecord, '_id' | 'orgId' | 'agentId' | 'environment' | 'buildId' | 'commitId'>;

/** What the steps of one case's driver share: the deps, the run, the case, its session mark, the deliveries made. */
interface DriverContext {
  deps: SessionDriverDeps;
  run: DriverRun;
  evaluationCase: EvaluationCase;
  /** The evaluation mark of the case's sessions and firings (run, case, mocks). */
  mark: { runId: string; caseId: string; mocks?: EvaluationCase['case']['mocks'] };
  /** The `deliver` steps taken so far (numbers each delivery's id). */
  delivered: number;
}

/** The case's session. @throws PlatformError `not_found` (404) when it is gone */
async function loadedSession(deps: SessionDriverDeps, sessionId: string) {
  const session = await sessionsOf(deps).findOne({ _id: sessionId });
  if (!session) throw new PlatformError('not_found', `the case's session ${sessionId} is gone`, { status: 404 });
  return session;
}

/** The target and firing of the case's next `deliver` step. */
async function nextDelivery(ctx: DriverContext, mapping: Record<string, unknown>) {
  const { deps, run, evaluationCase } = ctx;
  const trigger = deliveredTrigger(await deps.triggersOf(run.buildId, evaluationCase.workflow), evaluationCase);
  ctx.delivered += 1;
  const payload = deliveryPayload(trigger, mapping, { runId: run._id, caseId: evaluationCase.id, n: ctx.delivered });
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
  return { target, firing: { payload, message, evaluation: ctx.mark } };
}

/** Opens the case's session: as its trigger's firing for a first `deliver` step, else at the case's trigger. */
async function openCaseSession(ctx: DriverContext, first: CaseAction | undefined): Promise<{ sessionId: string }> {
  const { deps, run, evaluationCase } = ctx;
  const view = await deps.workflowOf(run.buildId, evaluationCase.workflow);
  if (first !== undefined && 'deliver' in first) {
    // A delivery opens the session as its trigger's firing would (the checks of every start made first).
    await checkStart(deps, { ...run, workflow: evaluationCase.workflow, view });
    const { target, firing } = await nextDelivery(ctx, first.deliver);
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
    evaluation: ctx.mark,
  });
  return { sessionId: session._id };
}

/** Takes a later step: a delivery, a reply or a decision. @throws PlatformError `session_busy` (409) and refusals */
async function actOnSession(ctx: DriverContext, sessionId: string, action: CaseAction): Promise<void> {
  const { deps } = ctx;
  const session = await loadedSession(deps, sessionId);
  if ('deliver' in action) {
    const turnId = await deliverFiring(deps, session, await nextDelivery(ctx, action.deliver));
    if (turnId === undefined) {
      throw new PlatformError(
        'session_busy',
        `deliver needs the session to await input, but it is ${session.status.replace('_', ' ')}`,
        { status: 409 },
      );
    }
  } else if ('send' in action) await takeReply(deps, session, action.send);
  else await takeDecision(deps, session, { ...action.decide, channel: 'evaluation' }, EVALUATION_ACTOR);
}

/**
 * Reads the session every {@link SETTLE_POLL_MS} until no turn runs. @returns it and its thread's messages
 * @throws PlatformError `step_timeout` (504) after `settleTimeoutMs`
 */
async function settleSession(deps: SessionDriverDeps, sessionId: string) {
  const started = deps.clock.now().getTime();
  for (;;) {
    const session = await loadedSession(deps, sessionId);
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
}

/** The driver of `evaluationCase` of `run`. */
export function sessionDriver(deps: SessionDriverDeps, run: DriverRun, evaluationCase: EvaluationCase): CaseDriver {
  const mark = {
    runId: run._id,
    caseId: evaluationCase.id,
    ...(evaluationCase.case.mocks ? { mocks: evaluationCase.case.mocks } : {}),
  };
  const ctx: DriverContext = { deps, run, evaluationCase, mark, delivered: 0 };
  return {
    open: (_case, first: CaseAction | undefined) => openCaseSession(ctx, first),
    act: (sessionId, action) => actOnSession(ctx, sessionId, action),
    settle: (sessionId) => settleSession(deps, sessionId),
  };
}
