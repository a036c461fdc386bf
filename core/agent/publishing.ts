/**
 * The published plane of an environment: publish (validate the draft with {@link validateAgentRepository},
 * write an immutable build, then swap the environment's published pointer in one document update),
 * restore (a published build back to the draft), discard (the draft back to the published commit) and
 * promote (one environment's published build to another environment). Maintainer role at least.
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
import { commitDraft, type EnvironmentView, environmentView, loadEnvironment, readDraftFiles } from './drafts.ts';
import {
  type AgentCaller,
  agentCollections,
  type AgentDeps,
  agentKeys,
  type AgentRecord,
  agentSchemaVersion,
  type BuildContent,
  type BuildRecord,
  checkEnvironmentName,
  defaultEnvironment,
  type EnvironmentRecord,
  type EvaluationGatePort,
  type PublishedPointer,
} from './hosting-model.ts';
import type { AgentFile } from './documents.ts';
import { validateAgentRepository } from './validate.ts';
import type { AgentProblem } from './yaml-source.ts';

/** One problem as `file:line:col key: message`. */
export const formatAgentProblem = (p: AgentProblem): string => `${p.file}:${p.line}:${p.column} ${p.key}: ${p.message}`;

/** The refusal of a publish whose draft does not validate: PlatformError `agent_invalid` (422) carrying the problems.
 */
export class AgentInvalidError extends PlatformError {
  /** Every problem of the draft. */
  readonly problems: AgentProblem[];

  // Fields written out, not as parameter properties: Node runs the operator command with type stripping only.
  constructor(problems: AgentProblem[], agent: string, env: string) {
    super(
      'agent_invalid',
      `Publish refused: agent "${agent}" environment "${env}" has ` +
        `${problems.length} problem(s); fix them in the draft and publish ` +
        `again:\n${problems.map(formatAgentProblem).join('\n')}`,
      { status: 422 },
    );
    this.problems = problems;
  }
}

const envs = (deps: Pick<AgentDeps, 'docs'>) => deps.docs.collection<EnvironmentRecord>(agentCollections.environments);
const by = (caller: AgentCaller) => caller.email;

/** A draft written as a build: its pointer and its files. */
interface WrittenBuild {
  pointer: PublishedPointer;
  files: AgentFile[];
}

/**
 * Validates `env`'s draft (and the process's publish checks) and writes it as a build: object and record. A build of
 * the same commit written earlier as a candidate (by a draft's evaluation) is used again, so its runs count for it.
 * @throws AgentInvalidError `agent_invalid` (422)
 */
async function writeBuild(
  deps: AgentDeps,
  caller: AgentCaller,
  target: { agent: AgentRecord; env: EnvironmentRecord },
  candidate: boolean,
): Promise<WrittenBuild> {
  const { agent, env } = target;
  const files = await readDraftFiles(deps, agent._id, env.name, true);
  const validation = validateAgentRepository(files);
  if (!validation.ok) throw new AgentInvalidError(validation.problems, agent.slug, env.name);
  const refused = (await deps.publishChecks?.(agent._id, env.name, files)) ?? [];
  if (refused.length > 0) throw new AgentInvalidError(refused, agent.slug, env.name);
  const builds = deps.docs.collection<BuildRecord>(agentCollections.builds);
  const earlier = await builds.findOne({
    agentId: agent._id,
    environment: env.name,
    commitId: env.draftCommit,
    candidate: true,
  });
  if (earlier) {
    const { _id: buildId, objectKey, commitId, counts, publishedAt, publishedBy } = earlier;
    return { pointer: { buildId, objectKey, commitId, counts, publishedAt, publishedBy }, files };
  }
  const publishedAt = deps.clock.now();
  const buildId = deps.ids.newId();
  const objectKey = agentKeys.build(agent._id, buildId);
  const content: BuildContent = {
    buildId,
    agentId: agent._id,
    environment: env.name,
    commitId: env.draftCommit,
    counts: validation.counts,
    publishedAt: publishedAt.toISOString(),
    files,
  };
  await deps.objects.put(objectKey, new TextEncoder().encode(JSON.stringify(content)), {
    contentType: 'application/json',
  });
  const pointer: PublishedPointer = {
    buildId,
    commitId: env.draftCommit,
    objectKey,
    counts: validation.counts,
    publishedAt,
    publishedBy: by(caller),
  };
  const { buildId: _id, ...fields } = pointer;
  const record: BuildRecord = {
    _id,
    schemaVersion: agentSchemaVersion,
    agentId: agent._id,
    environment: env.name,
    ...fields,
    ...(candidate ? { candidate: true } : {}),
  };
  await builds.insertOne(record);
  return { pointer, files };
}

/** Points `env`'s published plane at `built` (a candidate becomes a published build) and, on `main`, refreshes the
 * agent's description. */
async function pointAt(
  deps: AgentDeps,
  caller: AgentCaller,
  target: { agent: AgentRecord; env: EnvironmentRecord },
  built: WrittenBuild,
): Promise<EnvironmentView> {
  const { agent, env } = target;
  const pointer: PublishedPointer = { ...built.pointer, publishedAt: deps.clock.now(), publishedBy: by(caller) };
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

/**
 * The build an evaluation of `envName`'s draft runs on (the caller a User of the agent at least): the published build
 * when the draft is what is published, else a candidate build of the draft's commit (written once per commit, under
 * the agent's lock).
 * @throws AgentInvalidError `agent_invalid` (422) for a draft that does not validate; `agent_not_found`,
 *   `environment_not_found` (404); `agent_role_required` (403); `agent_busy` (409)
 */
export async function draftBuild(
  deps: AgentDeps,
  caller: AgentCaller,
  agentId: string,
  envName: string,
): Promise<{ buildId: string; commitId: string; files: AgentFile[] }> {
  const agent = await loadAgent(deps, caller, agentId, { role: 'user' });
  return withAgentLock(deps, agent._id, async () => {
    const env = await loadEnvironment(deps, agent, envName);
    if (env.published?.commitId === env.draftCommit) {
      const { buildId, commitId } = env.published;
      return { buildId, commitId, files: (await readBuild(deps, env.published)).files };
    }
    const { pointer, files } = await writeBuild(deps, caller, { agent, env }, true);
    return { buildId: pointer.buildId, commitId: pointer.commitId, files };
  });
}

/** The content of a build. @throws PlatformError `build_missing` (500) when its object is gone */
export async function readBuild(
  deps: Pick<AgentDeps, 'objects'>,
  pointer: { buildId: string; objectKey: string },
): Promise<BuildContent> {
  const bytes = await deps.objects.get(pointer.objectKey);
  if (!bytes) {
    throw new PlatformError(
      'build_missing',
      `Published build ${pointer.buildId} is missing from the object store; publish the environment again.`,
      { status: 500 },
    );
  }
  return JSON.parse(new TextDecoder().decode(bytes)) as BuildContent;
}

/**
 * The content of build `buildId` (any agent's: the caller holds the id from a record of its own, a session's or a
 * run's). @throws PlatformError `build_not_found` (404) when no such build is recorded, `build_missing` (500) when
 * its object is gone
 */
export async function readBuildById(deps: Pick<AgentDeps, 'docs' | 'objects'>, buildId: string): Promise<BuildContent> {
  const record = await deps.docs.collection<BuildRecord>(agentCollections.builds).findOne({ _id: buildId });
  if (!record) throw new PlatformError('build_not_found', `Published build ${buildId} was not found.`, { status: 404 });
  return readBuild(deps, { buildId, objectKey: record.objectKey });
}

async function findBuild(
  deps: Pick<AgentDeps, 'docs'>,
  agent: AgentRecord,
  buildId: string,
): Promise<{ buildId: string; objectKey: string }> {
  const record = await deps.docs.collection<BuildRecord>(agentCollections.builds).findOne({
    _id: buildId,
    agentId: agent._id,
    candidate: { $ne: true },
  });
  if (!record) {
    throw new PlatformError(
      'build_not_found',
      `Agent "${agent.slug}" has no published build "${
        buildId.slice(0, 100)
      }"; GET the agent's environments to see their published builds.`,
      { status: 404 },
    );
  }
  return { buildId: record._id, objectKey: record.objectKey };
}

/**
 * The published pointer of `env`. @throws PlatformError `not_published` (409) when it has nothing published, naming
 * the environment and the agent
 */
export function requirePublished(agent: Pick<AgentRecord, 'slug'>, env: EnvironmentRecord): PublishedPointer {
  if (env.published) return env.published;
  throw new PlatformError(
    'not_published',
    `Environment "${env.name}" of agent "${agent.slug}" has nothing published yet; publish it first.`,
    { status: 409 },
  );
}

/** Which build {@link restoreEnvironment} restores into which environment. */
export interface EnvironmentRestore {
  /** The agent's id or slug. */
  agentId: string;
  /** The environment whose draft receives the build's files. */
  envName: string;
  /** A build of this agent (any environment's). Default: the environment's published build. */
  buildId?: string;
}

/**
 * Restores a published build into an environment's draft (a new commit holding exactly its files).
 * @throws PlatformError `not_published` (409) with no build to restore; `build_not_found` (404);
 *   `agent_not_found`/`environment_not_found` (404); `agent_role_required` (403)
 */
export async function restoreEnvironment(
  deps: AgentDeps,
  caller: AgentCaller,
  { agentId, envName, buildId }: EnvironmentRestore,
): Promise<EnvironmentView> {
  const agent = await loadAgent(deps, caller, agentId, { role: 'maintainer' });
  return withAgentLock(deps, agent._id, async () => {
    const env = await loadEnvironment(deps, agent, envName);
    const build = buildId === undefined ? requirePublished(agent, env) : await findBuild(deps, agent, buildId);
    const content = await readBuild(deps, build);
    return environmentView(
      await commitDraft(deps, caller, {
        agent,
        envName: env.name,
        change: {
          files: content.files,
          replace: true,
          message: `Restore build ${content.buildId} (commit ${content.commitId.slice(0, 12)})`,
        },
      }),
    );
  });
}

/**
 * Discards the draft's changes: the draft gets exactly the files of the published commit (a new commit).
 * @throws PlatformError `not_published` (409) when nothing is published; others as {@link restoreEnvironment}
 */
export async function discardDraft(
  deps: AgentDeps,
  caller: AgentCaller,
  agentId: string,
  envName: string,
): Promise<EnvironmentView> {
  const agent = await loadAgent(deps, caller, agentId, { role: 'maintainer' });
  return withAgentLock(deps, agent._id, async () => {
    const env = await loadEnvironment(deps, agent, envName);
    const published = requirePublished(agent, env);
    const content = await readBuild(deps, published);
    return environmentView(
      await commitDraft(deps, caller, {
        agent,
        envName: env.name,
        change: {
          files: content.files,
          replace: true,
          message: `Discard draft changes (back to ${published.commitId.slice(0, 12)})`,
        },
      }),
    );
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
    const pointer: PublishedPointer = { ...source, publishedAt: deps.clock.now(), publishedBy: by(caller) };
    await envs(deps).updateOne({ _id: target._id }, { $set: { published: pointer } });
    return environmentView({ ...target, published: pointer });
  });
}
