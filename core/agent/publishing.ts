/**
 * The published plane of an environment: publish (validate the draft, write an immutable build: ./builds.ts,
 * then swap the environment's published pointer in one document update), behind the evaluation gate when it is on,
 * and promote (one environment's published build to another environment). Maintainer role at least. Restore and
 * discard (a build back to the draft) are ./draft-restores.ts.
 *
 * Each runs under the agent's lock. The API does not call them in the request: it queues an environment
 * operation (core/agent/operations.ts) that a dispatcher runs with them, as the member who asked.
 *
 * Source: spec/platform-service.md (What the service does; § Replacement of a container:
 * environment operations; § Errors); docs/decisions.md D7 § Agents and environments.
 */
import { PlatformError } from '../ports/platform-error.ts';
import { loadAgent } from './agent-access.ts';
import { withAgentLock } from './agent-lock.ts';
import { describeAgent } from './agents.ts';
import { readBuild, requirePublished, writeBuild, type WrittenBuild } from './builds.ts';
import { commitDraft, type EnvironmentView, environmentView, loadEnvironment } from './drafts.ts';
import {
  type AgentCaller,
  agentCollections,
  type AgentDeps,
  type AgentRecord,
  type BuildRecord,
  checkEnvironmentName,
  defaultEnvironment,
  type EnvironmentRecord,
  type EvaluationGatePort,
  type PublishedPointer,
} from './hosting-model.ts';

const envs = (deps: Pick<AgentDeps, 'docs'>) => deps.docs.collection<EnvironmentRecord>(agentCollections.environments);

/** Points `env`'s published plane at `built` (a candidate becomes a published build) and, on `main`, refreshes the
 * agent's description. */
async function pointAt(
  deps: AgentDeps,
  caller: AgentCaller,
  target: { agent: AgentRecord; env: EnvironmentRecord },
  built: WrittenBuild,
): Promise<EnvironmentView> {
  const { agent, env } = target;
  const pointer: PublishedPointer = { ...built.pointer, publishedAt: deps.clock.now(), publishedBy: caller.email };
  await deps.docs.collection<BuildRecord>(agentCollections.builds).updateOne({ _id: pointer.buildId }, {
    $set: { publishedAt: pointer.publishedAt, publishedBy: pointer.publishedBy },
    $unset: { candidate: true },
  });
  await envs(deps).updateOne({ _id: env._id }, { $set: { published: pointer } });
  if (env.name === defaultEnvironment) {
    await deps.docs.collection<AgentRecord>(agentCollections.agents).updateOne({ _id: agent._id }, {
      $set: describeAgent(built.files, agent.slug),
    });
  }
  return environmentView({ ...env, published: pointer });
}

/** The evaluation gate's port. @throws PlatformError `evaluation_unavailable` (503) when the process has none */
function gateOf(deps: AgentDeps): EvaluationGatePort {
  if (deps.evaluationGate) return deps.evaluationGate;
  throw new PlatformError(
    'evaluation_unavailable',
    'The evaluation gate is on but this process cannot run evaluations; run the operation on a dispatcher.',
    { status: 503 },
  );
}

/**
 * Publishes an environment's draft. With the environment's evaluation gate on, the draft is written as a candidate
 * build and every case runs on it first (outside the agent's lock: edits go on meanwhile); the candidate is published
 * only when every case passed.
 * @returns the environment with its new published build
 * @throws AgentInvalidError `agent_invalid` (422) listing every problem as `file:line:col key: message`
 *   (the published pointer is left unchanged); PlatformError `evaluation_failed` (422) with the run's summary;
 *   `agent_not_found`/`environment_not_found` (404); `agent_role_required` (403); `agent_busy` (409)
 */
export async function publishEnvironment(
  deps: AgentDeps,
  caller: AgentCaller,
  agentId: string,
  envName: string,
): Promise<EnvironmentView> {
  const agent = await loadAgent(deps, caller, agentId, { role: 'maintainer' });
  if ((await loadEnvironment(deps, agent, envName)).evaluationGate !== true) {
    return withAgentLock(deps, agent._id, async () => {
      const target = { agent, env: await loadEnvironment(deps, agent, envName) };
      return pointAt(deps, caller, target, await writeBuild(deps, caller, target, false));
    });
  }
  const gate = gateOf(deps);
  const built = await withAgentLock(deps, agent._id, async () => {
    return writeBuild(deps, caller, { agent, env: await loadEnvironment(deps, agent, envName) }, true);
  });
  const { buildId, commitId } = built.pointer;
  const build = {
    orgId: agent.orgId,
    agentId: agent._id,
    agentSlug: agent.slug,
    environment: envName,
    buildId,
    commitId,
    files: built.files,
  };
  const verdict = await gate.evaluate(build, caller.subject);
  if (!verdict.passed) {
    throw new PlatformError(
      'evaluation_failed',
      `Publish refused: environment "${envName}" of agent "${agent.slug}" has the evaluation gate on and ` +
        `${verdict.summary}. Fix the draft (or its cases) and publish again.`,
      { status: 422 },
    );
  }
  return withAgentLock(deps, agent._id, async () => {
    return pointAt(deps, caller, { agent, env: await loadEnvironment(deps, agent, envName) }, built);
  });
}

/** Which published build {@link promoteEnvironment} promotes, and where. */
export interface EnvironmentPromotion {
  /** The agent's id or slug. */
  agentId: string;
  /** The environment whose published build is promoted. */
  from: string;
  /** The environment that then publishes it (created when missing). */
  to: string;
}

/**
 * Promotes environment `from`'s published build to environment `to`: `to`'s published pointer is swapped
 * to the same immutable build in one document update. A `to` that does not exist is created with the
 * build's files as its draft; an existing `to` keeps its draft.
 * With `to`'s evaluation gate on, the build needs a run in which every case passed (any environment's run of it).
 * @throws PlatformError `invalid_argument` (400) when `from` equals `to`; `not_published` (409) when
 *   `from` has nothing published; `evaluation_required` (409) when the gate finds no passing run; others as
 *   {@link publishEnvironment}
 */
export async function promoteEnvironment(
  deps: AgentDeps,
  caller: AgentCaller,
  { agentId, from, to }: EnvironmentPromotion,
): Promise<EnvironmentView> {
  const agent = await loadAgent(deps, caller, agentId, { role: 'maintainer' });
  checkEnvironmentName(to);
  if (from === to) {
    throw new PlatformError(
      'invalid_argument',
      `Promote copies one environment's published build to another; "to" must differ from "${from}".`,
      { status: 400 },
    );
  }
  return withAgentLock(deps, agent._id, async () => {
    const source = requirePublished(agent, await loadEnvironment(deps, agent, from));
    let target = await envs(deps).findOne({ _id: `${agent._id}:${to}` });
    if (target?.evaluationGate === true && !(await gateOf(deps).passingRun(agent._id, source.buildId))) {
      throw new PlatformError(
        'evaluation_required',
        `Promote refused: environment "${to}" has the evaluation gate on and build ${source.buildId} of "${from}" ` +
          `has no run in which every case passed; run \`cairn eval run ${agent.slug} --env ${from}\` and promote ` +
          `again.`,
        { status: 409 },
      );
    }
    if (!target) {
      target = await commitDraft(deps, caller, {
        agent,
        envName: to,
        change: {
          files: (await readBuild(deps, source)).files,
          replace: true,
          message: `Create environment ${to} from ${from}'s build ${source.buildId}`,
        },
      });
    }
    const pointer: PublishedPointer = { ...source, publishedAt: deps.clock.now(), publishedBy: caller.email };
    await envs(deps).updateOne({ _id: target._id }, { $set: { published: pointer } });
    return environmentView({ ...target, published: pointer });
  });
}
