/**
 * Builds of an agent: the draft written as an immutable build (object and record) after the validator and the
 * process's publish checks pass, the refusal listing every problem, the candidate build a draft's evaluation runs
 * on, and reading a build back (by pointer, by id, an agent's own published one).
 *
 * Source: spec/platform-service.md (What the service does; § Errors); docs/decisions.md D7 § Agents and
 * environments.
 */
import { PlatformError } from '../ports/platform-error.ts';
import { loadAgent } from './agent-access.ts';
import { withAgentLock } from './agent-lock.ts';
import { loadEnvironment, readDraftFiles } from './drafts.ts';
import {
  type AgentCaller,
  agentCollections,
  type AgentDeps,
  agentKeys,
  type AgentRecord,
  agentSchemaVersion,
  type BuildContent,
  type BuildRecord,
  type EnvironmentRecord,
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

/** A draft written as a build: its pointer and its files. */
export interface WrittenBuild {
  pointer: PublishedPointer;
  files: AgentFile[];
}

/**
 * Validates `env`'s draft (and the process's publish checks) and writes it as a build: object and record. A build of
 * the same commit written earlier as a candidate (by a draft's evaluation) is used again, so its runs count for it.
 * @throws AgentInvalidError `agent_invalid` (422)
 */
export async function writeBuild(
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
    publishedBy: caller.email,
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

/**
 * The record of `agent`'s published (not candidate) build `buildId`, as a pointer. @throws PlatformError
 * `build_not_found` (404) naming the agent
 */
export async function findBuild(
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
