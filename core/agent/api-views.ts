/**
 * Answer shapes of the agent routes (bins/api/agent-routes.ts), shared with the web app
 * (web/src/pages/platform/agents) so neither re-declares them. Times are ISO-8601 strings on the wire.
 *
 * Source: spec/platform-service.md (What the service does; § Errors); docs/decisions.md D7 § Agents and
 * environments; docs/decisions.md D10 (Agents and environments page).
 */
import { type Static, Type } from '@sinclair/typebox';
import { AgentCounts } from './hosting-model.ts';
import { OperationInput, OperationKind, OperationProblem, OperationStatus } from './operations-model.ts';

/** An agent as listed (GET /api/orgs/:org/agents → `{ agents: AgentView[] }`). */
export const AgentView = Type.Object({
  id: Type.String(),
  orgId: Type.String(),
  slug: Type.String(),
  /** AGENTS.md front matter `name`, else the slug. */
  name: Type.String(),
  description: Type.String(),
  createdAt: Type.String(),
});
export type AgentView = Static<typeof AgentView>;

/** GET /api/orgs/:org/agents. */
export const AgentListAnswer = Type.Object({ agents: Type.Array(AgentView) });
export type AgentListAnswer = Static<typeof AgentListAnswer>;

/** The published plane: one immutable build; `publishedBy` is the member's email. */
export const PublishedPlaneView = Type.Object({
  buildId: Type.String(),
  commitId: Type.String(),
  counts: AgentCounts,
  publishedAt: Type.String(),
  publishedBy: Type.String(),
});
export type PublishedPlaneView = Static<typeof PublishedPlaneView>;

/** An environment: its draft plane (the branch head) and its published plane (null before the first publish). */
export const EnvironmentSummary = Type.Object({
  agentId: Type.String(),
  name: Type.String(),
  draft: Type.Object({ commitId: Type.String(), savedAt: Type.String() }),
  published: Type.Union([PublishedPlaneView, Type.Null()]),
  /** The evaluation gate: a publish runs the draft's cases first; a promotion needs a passing run of the build. */
  evaluationGate: Type.Boolean(),
});
export type EnvironmentSummary = Static<typeof EnvironmentSummary>;

/** GET /api/agents/:agent: the agent with its environments. */
export const AgentDetail = Type.Composite([
  AgentView,
  Type.Object({
    environments: Type.Array(EnvironmentSummary),
    /** The caller's role on the agent (the web app offers the Design and Skills tabs to a Maintainer or above). */
    you: Type.Object({
      role: Type.Union([
        Type.Literal('reader'),
        Type.Literal('user'),
        Type.Literal('maintainer'),
        Type.Literal('administrator'),
      ]),
    }),
  }),
]);
export type AgentDetail = Static<typeof AgentDetail>;

/** A published build of the agent (any environment), a choice for Restore. */
export const BuildSummary = Type.Object({
  id: Type.String(),
  environment: Type.String(),
  commitId: Type.String(),
  counts: AgentCounts,
  publishedAt: Type.String(),
  publishedBy: Type.String(),
});
export type BuildSummary = Static<typeof BuildSummary>;

/** The most builds GET …/environments/:env lists (newest first). */
export const maxListedBuilds = 50;

/**
 * GET /api/agents/:agent/environments/:env: the environment, the agent's newest builds (at most
 * {@link maxListedBuilds}, newest first, every environment's) and the published plane's workflow slugs
 * (empty before the first publish).
 */
export const EnvironmentDetail = Type.Composite([
  EnvironmentSummary,
  Type.Object({
    builds: Type.Array(BuildSummary),
    workflows: Type.Array(Type.String()),
  }),
]);
export type EnvironmentDetail = Static<typeof EnvironmentDetail>;

/** A queued environment operation (publish, restore, discard, promote); `requestedBy` is the member's email. */
export const OperationJson = Type.Object({
  id: Type.String(),
  agentId: Type.String(),
  environment: Type.String(),
  kind: OperationKind,
  input: OperationInput,
  status: OperationStatus,
  requestedBy: Type.String(),
  /** A failed operation's error; a refused publish is `agent_invalid` with located `problems` (file, line, message). */
  error: Type.Union([
    Type.Object({ code: Type.String(), message: Type.String(), problems: Type.Optional(Type.Array(OperationProblem)) }),
    Type.Null(),
  ]),
  /** The environment after a succeeded operation, else null. */
  result: Type.Union([EnvironmentSummary, Type.Null()]),
  queuedAt: Type.String(),
  startedAt: Type.Union([Type.String(), Type.Null()]),
  endedAt: Type.Union([Type.String(), Type.Null()]),
});
export type OperationJson = Static<typeof OperationJson>;

/** POST …/publish|restore|discard|promote (202) and GET /api/agents/:agent/operations/:id. */
export const OperationAnswer = Type.Object({ operation: OperationJson });
export type OperationAnswer = Static<typeof OperationAnswer>;

/** Body of POST …/restore: a build id (default: the environment's published build). */
export const RestoreBody = Type.Object({ buildId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }, {
  additionalProperties: false,
});
export type RestoreBody = Static<typeof RestoreBody>;

/** Body of POST …/promote: the target environment's name. */
export const PromoteBody = Type.Object({
  to: Type.String({
    minLength: 1,
    maxLength: 40,
    pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
    description: 'a slug of at most 40 lowercase letters and digits joined by hyphens',
  }),
}, { additionalProperties: false });
export type PromoteBody = Static<typeof PromoteBody>;
