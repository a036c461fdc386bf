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
import { openAtTrigger, takeDecision, takeReply, type TurnQueueDeps } from '../session/sessions.ts';
import type { WorkflowView } from '../session/workflow-view.ts';
import type { EvaluationCase } from './cases.ts';
import type { EvaluationRunRecord } from './model.ts';
import type { CaseAction, CaseDriver } from './run-case.ts';

/** What the driver needs: the turn queue's stores, the build's workflows, a pause, and how long a step may take. */
export interface SessionDriverDeps extends TurnQueueDeps {
  workflowOf(buildId: string, slug: string): Promise<WorkflowView>;
  sleep(ms: number): Promise<void>;
  /** How long a step may take before its case fails (ms). */
  settleTimeoutMs: number;
}

/** How often a settling session is read (ms). */
export const SETTLE_POLL_MS = 100;

/** Who a case's decisions are taken by, on the session's trail. */
const EVALUATION_ACTOR = 'evaluation';

const notYet = () =>
  new PlatformError(
    'not_supported',
    'deliver steps do not run in evaluations yet; start the case with send, or test the delivery through its ' +
      'webhook connection',
    { status: 400 },
  );

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
  return {
    async open(_case, first: CaseAction | undefined) {
      if (first !== undefined && 'deliver' in first) throw notYet();
      const view = await deps.workflowOf(run.buildId, evaluationCase.workflow);
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
        evaluation: {
          runId: run._id,
          caseId: evaluationCase.id,
          ...(evaluationCase.case.mocks ? { mocks: evaluationCase.case.mocks } : {}),
        },
      });
      return { sessionId: session._id };
    },
    async act(sessionId, action) {
      if ('deliver' in action) throw notYet();
      const session = await loaded(sessionId);
      if ('send' in action) await takeReply(deps, session, action.send);
      else await takeDecision(deps, session, action.decide, EVALUATION_ACTOR);
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
