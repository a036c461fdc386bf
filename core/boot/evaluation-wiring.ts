/**
 * Wires evaluation runs (core/evaluation) to hosted agents, the stores, the queues and the model provider: the API's
 * use cases (agents found by id or slug among the caller's organizations, their role checked by the one
 * authorization helper; the environment's published build; the `evaluations` queue) and the dispatcher's runner
 * (cases driven as sessions through the turn queue; grades judged by the case workflow's model).
 *
 * Source: issue "Evaluations" § Runs, § Rubrics; docs/decisions.md D17 § 2 (one authorization helper).
 */
import {
  type AgentDeps,
  draftBuild,
  type EvaluationGatePort,
  loadEnvironment,
  type PublishedAgent,
  readBuild,
  readBuildById,
  requirePublished,
} from '../agent/hosting.ts';
import { evaluateBuild, passingRunOf } from '../evaluation/gate.ts';
import { modelsForCase } from '../evaluation/cassette-store.ts';
import { meteredJudgeCall } from '../evaluation/judge-call.ts';
import type { EvaluationDeps } from '../evaluation/evaluation-runs.ts';
import type { EvaluationRunnerDeps } from '../evaluation/evaluation-runner.ts';
import { EVALUATION_QUEUE } from '../evaluation/model.ts';
import { sessionDriver } from '../evaluation/session-driver.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import type { ModelProvider, ModelUsage } from '../ports/model-provider.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { SessionStoreDeps } from '../session/session-store.ts';
import type { WorkflowView } from '../session/workflow-view.ts';
import { agentScope } from './agent-authority.ts';

const noQueue = () =>
  new PlatformError(
    'queue_unavailable',
    'No queue store is configured (QUEUE_URL), so no evaluation can run; set QUEUE_URL or run the all-in-one ' +
      'container.',
    { status: 503 },
  );

/** Puts a run's job on the `evaluations` queue (its id the run's). */
const enqueuer = (queue: JobQueue | undefined) => async (runId: string) => {
  if (!queue) throw noQueue();
  await queue.add(EVALUATION_QUEUE, 'run', { runId }, { jobId: runId });
};

/** The API's EvaluationDeps over the stores and the job queue; `hosting` writes a draft's candidate build. */
export function evaluationDeps(
  parts: SessionStoreDeps & { queue: JobQueue | undefined; hosting: AgentDeps },
): EvaluationDeps {
  const agentOf = agentScope(parts.docs);
  return {
    docs: parts.docs,
    clock: parts.clock,
    ids: parts.ids,
    resolveAgent: async (caller, ref, role) => {
      const agent = await agentOf(caller, ref.agent, role, ref.orgId === undefined ? {} : { orgId: ref.orgId });
      return { orgId: agent.orgId, agentId: agent._id, slug: agent.slug };
    },
    publishedBuild: async (agent, environment) => {
      const env = await loadEnvironment(parts, { _id: agent.agentId, slug: agent.slug }, environment);
      const published = requirePublished(agent, env);
      const content = await readBuild(parts, published);
      return { buildId: published.buildId, commitId: published.commitId, files: content.files };
    },
    draftBuild: (agent, environment, caller) => draftBuild(parts.hosting, caller, agent.agentId, environment),
    enqueue: enqueuer(parts.queue),
  };
}

/** The evaluation gate of a dispatcher's environment operations: runs through the `evaluations` queue. */
export function evaluationGatePort(parts: SessionStoreDeps & { queue: JobQueue | undefined }): EvaluationGatePort {
  const deps = {
    ...parts,
    enqueue: enqueuer(parts.queue),
    sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  };
  return {
    evaluate: async (build, requestedBy) => {
      const { orgId, agentId, agentSlug: slug, environment, buildId, commitId, files } = build;
      const of = { agent: { orgId, agentId, slug }, environment, build: { buildId, commitId, files } };
      return evaluateBuild(deps, { ...of, startedBy: requestedBy });
    },
    passingRun: (agentId, buildId) => passingRunOf(parts, agentId, buildId),
  };
}

/** The dispatcher's EvaluationRunnerDeps: sessions through the turn queue, grades by the workflow's model. */
export function evaluationRunnerDeps(
  parts: SessionStoreDeps & {
    enqueueTurn(turnId: string): Promise<void>;
    workflowOf(buildId: string, slug: string): Promise<WorkflowView>;
    /** The runtime's reading of a build (its triggers, for `deliver` steps). */
    agentOf(buildId: string): Promise<PublishedAgent>;
    models: ModelProvider;
    /** Cost in USD of a usage on `model` (the config's prices; 0 without prices): the judges' cost. */
    costOf(model: string | undefined, usage: ModelUsage): number;
    promptCache: { enabled: boolean; ttl: '5m' | '1h' };
    /** How long one step of a case may take (ms). */
    settleTimeoutMs: number;
    log(line: string): void;
  },
): EvaluationRunnerDeps {
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  const triggersOf = async (buildId: string, slug: string) =>
    ((await parts.agentOf(buildId)).workflows[slug]?.triggers ?? []).map(({ id, type, state }) => ({
      id,
      type,
      state,
    }));
  return {
    docs: parts.docs,
    clock: parts.clock,
    log: parts.log,
    filesOf: async (run) => (await readBuildById(parts, run.buildId)).files,
    driverFor: (run, evaluationCase) => sessionDriver({ ...parts, sleep, triggersOf }, run, evaluationCase),
    gradeFor: (run, evaluationCase) => ({
      // A worker-free judge: the PLATFORM_* variables are never read here, so a rubric naming its own model fails.
      presentVariables: [],
      judge: async (request) => {
        const view = await parts.workflowOf(run.buildId, evaluationCase.workflow);
        const models = await modelsForCase(parts, parts.models, { runId: run._id, caseId: evaluationCase.id });
        const scope = { orgId: run.orgId, agentId: run.agentId, environment: run.environment };
        return meteredJudgeCall(parts, { ...scope, workflow: evaluationCase.workflow }, {
          models,
          model: request.model ?? view.model,
          messages: request.messages,
          promptCache: parts.promptCache,
          costOf: parts.costOf,
        });
      },
    }),
  };
}

/** The model provider of an evaluation session's calls: recording or replaying as its run says (turn runners). */
export function evaluationModelsOf(
  parts: SessionStoreDeps,
  models: ModelProvider,
): (mark: { runId: string; caseId: string }) => Promise<ModelProvider> {
  return (mark) => modelsForCase(parts, models, mark);
}
