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
  type PublishedPointer,
} from './hosting-model.ts';
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

/**
 * Publishes an environment's draft.
 * @returns the environment with its new published build
 * @throws AgentInvalidError `agent_invalid` (422) listing every problem as `file:line:col key: message`
 *   (the published pointer is left unchanged); `agent_not_found`/`environment_not_found` (404);
 *   `agent_role_required` (403); `agent_busy` (409)
 */
export async function publishEnvironment(
  deps: AgentDeps,
  caller: AgentCaller,
  agentId: string,
  envName: string,
): Promise<EnvironmentView> {
  const agent = await loadAgent(deps, caller, agentId, { role: 'maintainer' });
  return withAgentLock(deps, agent._id, async () => {
    const env = await loadEnvironment(deps, agent, envName);
    const files = await readDraftFiles(deps, agent._id, env.name, true);
    const validation = validateAgentRepository(files);
    if (!validation.ok) throw new AgentInvalidError(validation.problems, agent.slug, env.name);
    const refused = (await deps.publishChecks?.(agent._id, env.name, files)) ?? [];
    if (refused.length > 0) throw new AgentInvalidError(refused, agent.slug, env.name);
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
    const record: BuildRecord = {
      _id: buildId,
      schemaVersion: agentSchemaVersion,
      agentId: agent._id,
      environment: env.name,
      commitId: env.draftCommit,
      objectKey,
      counts: validation.counts,
      publishedAt,
      publishedBy: by(caller),
    };
    await deps.docs.collection<BuildRecord>(agentCollections.builds).insertOne(record);
    await envs(deps).updateOne({ _id: env._id }, { $set: { published: pointer } });
    if (env.name === defaultEnvironment) {
      await deps.docs.collection<AgentRecord>(agentCollections.agents).updateOne({ _id: agent._id }, {
        $set: describeAgent(files, agent.slug),
      });
    }
    return environmentView({ ...env, published: pointer });
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
 * @throws PlatformError `invalid_argument` (400) when `from` equals `to`; `not_published` (409) when
 *   `from` has nothing published; others as {@link publishEnvironment}
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
