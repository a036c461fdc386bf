/**
 * Stored records of organizations (documents in the document store), their collection names, the
 * permissions and agent roles, and the ports the organization use cases need.
 *
 * Source: ../shared/spec/platform-service.md § Authentication rule 8 (permissions, agent roles, built-in
 * groups); issue 7 § Organizations and roles.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';

/**
 * Version of the document shape each organization collection holds (`schemaVersion` on every document);
 * a data update moves documents from one version to the next. Source: spec/platform-service.md § Versioning.
 */
export const orgSchemaVersion = 1 as const;

/** Collection names, one place. */
export const orgCollections = {
  organizations: 'org_organizations',
  members: 'org_members',
  groups: 'org_groups',
  groupMembers: 'org_group_members',
} as const;

/** The world the organization use cases need, passed in (no module-level connections). */
export interface OrgDeps {
  docs: DocumentStore;
  clock: Clock;
  ids: Ids;
}

/**
 * The signed-in person acting, as the sign-in produced them (core/auth's Principal: `subject` is its `id`).
 * Source: spec/platform-service.md § Platform sign-in modes.
 */
export interface OrgCaller {
  /** Stable subject the identity provider (or the load balancer, or dev-user) asserts. */
  subject: string;
  email: string;
  name?: string;
}

/**
 * Permissions a group grants in its organization.
 * Source: spec/platform-service.md § Authentication rule 8 (permissions named).
 */
export const permissions = ['workflows:use', 'sessions:personal', 'organization:manage', 'agents:create'] as const;
/** One of {@link permissions}. */
export type Permission = (typeof permissions)[number];
export const PermissionSchema = Type.Union(permissions.map((p) => Type.Literal(p)), { description: `one of ${permissions.join(', ')}` });

/**
 * Agent roles, lowest first: a member's role on an agent is the highest their groups give.
 * Source: spec/platform-service.md § Authentication rule 8 (agent roles).
 */
export const agentRoles = ['reader', 'user', 'maintainer', 'administrator'] as const;
/** One of {@link agentRoles}. */
export type AgentRole = (typeof agentRoles)[number];
export const AgentRoleSchema = Type.Union(agentRoles.map((r) => Type.Literal(r)), { description: `one of ${agentRoles.join(', ')}` });

/** The agent of an agent-role grant: an agent id, or `*` for every agent of the organization. */
export const AgentRef = Type.String({ pattern: '^(\\*|[A-Za-z0-9][A-Za-z0-9_.-]{0,99})$', description: 'an agent id (letters, digits, _ . -; at most 100) or * for every agent' });

/** One agent-role grant of a group. */
export const AgentRoleGrant = Type.Object({ agent: AgentRef, role: AgentRoleSchema }, { additionalProperties: false });
export type AgentRoleGrant = Static<typeof AgentRoleGrant>;

/** Built-in groups every organization has, by their stable key. */
export const builtinGroupKeys = ['owner', 'administrator', 'maintainer', 'user'] as const;
export type BuiltinGroupKey = (typeof builtinGroupKeys)[number];

/** How an organization came to be: the dev-user default, a first sign-in's personal one, or created by a member. */
export type OrganizationKind = 'default' | 'personal' | 'shared';

const SchemaVersion = Type.Literal(orgSchemaVersion);

/** An organization. `key` is unique: `default`, `personal:<subject>` or `shared:<id>`. */
export const OrganizationRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: SchemaVersion,
  key: Type.String(),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  kind: Type.Union([Type.Literal('default'), Type.Literal('personal'), Type.Literal('shared')]),
  createdAt: Type.Date(),
  /** Subject of the member who created it (its first Organization Owner). */
  createdBy: Type.String(),
  /** False until its built-in groups and first owner are stored (a crash or a race in between is finished by the next ensure). */
  setupComplete: Type.Boolean(),
});
export type OrganizationRecord = Static<typeof OrganizationRecord>;

/** A member of an organization: one signed-in person (unique per organization by subject). */
export const MemberRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: SchemaVersion,
  orgId: Type.String(),
  subject: Type.String(),
  email: Type.String(),
  name: Type.Optional(Type.String()),
  addedAt: Type.Date(),
});
export type MemberRecord = Static<typeof MemberRecord>;

/** A group: the permissions and agent roles its members get. Built-in groups have `builtin` and the id `<orgId>.<key>`. */
export const GroupRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: SchemaVersion,
  orgId: Type.String(),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  builtin: Type.Optional(Type.Union(builtinGroupKeys.map((k) => Type.Literal(k)))),
  permissions: Type.Array(PermissionSchema),
  agentRoles: Type.Array(AgentRoleGrant),
  createdAt: Type.Date(),
});
export type GroupRecord = Static<typeof GroupRecord>;

/** A member's membership of a group; `_id` is `<groupId>:<memberId>`, so adding twice stores one. */
export const GroupMemberRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: SchemaVersion,
  orgId: Type.String(),
  groupId: Type.String(),
  memberId: Type.String(),
  addedAt: Type.Date(),
});
export type GroupMemberRecord = Static<typeof GroupMemberRecord>;
