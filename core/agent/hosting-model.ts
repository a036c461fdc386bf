/**
 * Hosted agents: stored records of agents, their environments and published builds (documents in the
 * document store), their collection names and object keys, and the ports the hosting use cases need.
 *
 * An agent is one git repository (`agents/<agentId>` in the GitRepo port, persisted in the object store);
 * an environment is a named branch of it with a draft plane (the branch head) and a published plane (an
 * immutable build: the validated files at one commit, written once under {@link agentKeys.build}).
 *
 * Source: spec/platform-service.md (What the service does: agents and environments); docs/decisions.md D7
 * § Agents and environments.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { GitRepo } from '../ports/git-repo.ts';
import type { Ids } from '../ports/ids.ts';
import type { Lease } from '../ports/lease.ts';
import type { ObjectStore } from '../ports/object-store.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { AgentFile } from './documents.ts';
import type { AgentProblem } from './yaml-source.ts';
import { slugRegExp } from './model.ts';

/** Version of the document shape each hosting collection holds (`schemaVersion` on every document). Source: spec §
 * Versioning. */
export const agentSchemaVersion = 1 as const;

/** Collection names, one place. */
export const agentCollections = {
  agents: 'agent_agents',
  environments: 'agent_environments',
  builds: 'agent_builds',
  /** Environment operations (publish, restore, discard, promote) as queued work: core/agent/operations-model.ts. */
  operations: 'agent_operations',
} as const;

/** Object and repository keys of an agent, one place. */
export const agentKeys = {
  /** GitRepo key of the agent's repository. */
  repo: (agentId: string) => `agents/${agentId}`,
  /** Object key of an immutable published build. */
  build: (agentId: string, buildId: string) => `agents/${agentId}/builds/${buildId}.json`,
};

/** The environment every agent starts with. */
export const defaultEnvironment = 'main';

/**
 * The world the hosting use cases need, passed in (no module-level connections).
 * `template` gives the files a new agent is seeded with (PLATFORM_TEMPLATE_REPO read by the process, or
 * {@link builtinTemplate} when it is unset or empty). `lease` holds the per-agent lock across processes.
 * `authority` makes core/org's checks.
 */
export interface AgentDeps {
  docs: DocumentStore;
  authority: AgentAuthority;
  objects: ObjectStore;
  git: GitRepo;
  lease: Lease;
  clock: Clock;
  ids: Ids;
  template(): Promise<AgentFile[]>;
  /** Resolves after `ms` milliseconds (the lock's poll; a timer of the runtime). */
  wait(ms: number): Promise<void>;
  /**
   * Checks a publish makes beyond the validator with what the process knows (the config's models, the
   * environment's spend caps: core/boot/spend-cap-models.ts); any problem refuses the publish. Optional.
   */
  publishChecks?(agentId: string, environment: string, files: AgentFile[]): Promise<AgentProblem[]>;
  /** The evaluation gate's runs (core/boot wires core/evaluation). Without it a gated publish or promotion is
   * refused with `evaluation_unavailable`. */
  evaluationGate?: EvaluationGatePort;
}

/** A build the evaluation gate runs or asks about. */
export interface GatedBuild {
  orgId: string;
  agentId: string;
  agentSlug: string;
  environment: string;
  buildId: string;
  commitId: string;
  /** The build's files (its cases among them). */
  files: AgentFile[];
}

/**
 * What the evaluation gate asks of evaluation runs (docs/decisions.md D20 § Gate).
 */
export interface EvaluationGatePort {
  /**
   * Runs every case of `build` through the `evaluations` queue as `requestedBy` (a subject) and waits for its end.
   * @returns the run's id, whether every case passed, and a summary naming each failing case and step
   */
  evaluate(build: GatedBuild, requestedBy: string): Promise<{ runId: string; passed: boolean; summary: string }>;
  /** The id of a run of every case of build `buildId` that passed, if any. */
  passingRun(agentId: string, buildId: string): Promise<string | undefined>;
}

/** Agent roles, lowest first (core/org's roles; a member's role is the highest their groups give). */
export type AgentRoleName = 'reader' | 'user' | 'maintainer' | 'administrator';

/**
 * The organization checks the hosting use cases make, given by the process from core/org (a domain does
 * not import another; core/boot/agent-authority.ts wires core/org's `requirePermission`/`requireAgentRole`).
 * Errors are core/org's: `not_found` (404) for an organization the caller is not in,
 * `permission_required` (403), `agent_role_required` (403).
 */
export interface AgentAuthority {
  /** Requires `agents:create` of the caller in `orgId`. */
  requireCreate(caller: AgentCaller, orgId: string): Promise<void>;
  /**
   * Requires at least `role` on agent `agentId` of `orgId`: `not_found` (404) when the caller is not a member or
   * holds no role at all on the agent (it does not see it), `agent_role_required` (403) for a lower role.
   */
  requireRole(caller: AgentCaller, orgId: string, agentId: string, role: AgentRoleName): Promise<void>;
  /** Ids of the organizations the caller is a member of (where agent references are looked up). */
  memberOrgIds(caller: AgentCaller): Promise<string[]>;
  /** The caller's role on each agent of `orgId` (undefined: none). */
  rolesIn(caller: AgentCaller, orgId: string): Promise<(agentId: string) => AgentRoleName | undefined>;
}

/** The signed-in member acting (core/org's caller). */
export interface AgentCaller {
  subject: string;
  email: string;
  name?: string;
}

const SchemaVersion = Type.Literal(agentSchemaVersion);
/** What a build declares: the validator's counts. */
export const AgentCounts = Type.Object({
  workflows: Type.Number(),
  states: Type.Number(),
  triggers: Type.Number(),
  skills: Type.Number(),
  tests: Type.Number(),
});
export type AgentCounts = Static<typeof AgentCounts>;

/** An agent of an organization; `slug` is unique within the organization. */
export const AgentRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: SchemaVersion,
  orgId: Type.String(),
  slug: Type.String(),
  /** Display name: AGENTS.md front matter `name`, else the slug (refreshed on publish of `main`). */
  name: Type.String(),
  /** AGENTS.md front matter `description` (refreshed on publish of `main`). */
  description: Type.String(),
  createdAt: Type.Date(),
  createdBy: Type.String(),
});
export type AgentRecord = Static<typeof AgentRecord>;

/** Where an environment's published plane points: one immutable build. */
export const PublishedPointer = Type.Object({
  buildId: Type.String(),
  commitId: Type.String(),
  objectKey: Type.String(),
  counts: AgentCounts,
  publishedAt: Type.Date(),
  publishedBy: Type.String(),
});
export type PublishedPointer = Static<typeof PublishedPointer>;

/** An environment (a branch): `_id` is `<agentId>:<name>`; `draftCommit` is the branch head. */
export const EnvironmentRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: SchemaVersion,
  agentId: Type.String(),
  orgId: Type.String(),
  name: Type.String(),
  draftCommit: Type.String(),
  draftSavedAt: Type.Date(),
  published: Type.Union([PublishedPointer, Type.Null()]),
  createdAt: Type.Date(),
  /** The evaluation gate (absent: off): a publish runs the draft's cases first, a promotion here needs a passing
   * run of the promoted build (docs/decisions.md D20). */
  evaluationGate: Type.Optional(Type.Boolean()),
});
export type EnvironmentRecord = Static<typeof EnvironmentRecord>;

/** A published build's record (its content is the object at `objectKey`, written once and never changed). */
export const BuildRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: SchemaVersion,
  agentId: Type.String(),
  environment: Type.String(),
  commitId: Type.String(),
  objectKey: Type.String(),
  counts: AgentCounts,
  publishedAt: Type.Date(),
  publishedBy: Type.String(),
  /** A build of a draft written for an evaluation (a draft run, a gated publish), not (yet) published: not listed
   * for Restore. Unset when a publish points at it. */
  candidate: Type.Optional(Type.Boolean()),
});
export type BuildRecord = Static<typeof BuildRecord>;

/** The content of a build object. */
export interface BuildContent {
  buildId: string;
  agentId: string;
  environment: string;
  commitId: string;
  counts: AgentCounts;
  publishedAt: string;
  files: AgentFile[];
}

/** Environment names: a slug of at most 40 characters. */
export const environmentNamePattern = '^[a-z0-9]+(-[a-z0-9]+)*$';

/**
 * Checks an environment name.
 * @throws PlatformError `invalid_argument` (400) naming the rule
 */
export function checkEnvironmentName(name: string): string {
  if (name.length > 40 || !slugRegExp.test(name)) {
    throw new PlatformError(
      'invalid_argument',
      `Environment name ${
        JSON.stringify(name.slice(0, 60))
      } is not valid: use at most 40 lowercase letters and digits joined by single hyphens (e.g. main, staging).`,
      { status: 400 },
    );
  }
  return name;
}

/**
 * Checks an agent slug.
 * @throws PlatformError `invalid_argument` (400) naming the rule
 */
export function checkAgentSlug(slug: string): string {
  if (slug.length > 60 || !slugRegExp.test(slug)) {
    throw new PlatformError(
      'invalid_argument',
      `Agent slug ${
        JSON.stringify(slug.slice(0, 80))
      } is not valid: use at most 60 lowercase letters and digits joined by single hyphens (e.g. flights-analyst).`,
      { status: 400 },
    );
  }
  return slug;
}

/** Creates the hosting collections' indexes (idempotent; run at boot). */
export async function ensureAgentIndexes(docs: DocumentStore): Promise<void> {
  await docs.collection(agentCollections.agents).createIndex({ orgId: 1, slug: 1 }, { unique: true });
  await docs.collection(agentCollections.environments).createIndex({ agentId: 1, name: 1 }, { unique: true });
  await docs.collection(agentCollections.builds).createIndex({ agentId: 1, publishedAt: -1 });
  await docs.collection(agentCollections.operations).createIndex({ status: 1 });
}
