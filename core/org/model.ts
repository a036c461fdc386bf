/**
 * Stored records of organizations (documents in the document store), their collection names, the
 * permissions and agent roles, and the ports the organization use cases need.
 *
 * Source: spec/platform-service.md § Authentication rule 8 (permissions, agent roles, built-in
 * groups); docs/decisions.md D7 § Organizations and roles.
 */
import { type Static, Type } from '@sinclair/typebox';
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
  invitations: 'org_invitations',
  domains: 'org_domains',
  verifiedDomains: 'org_verified_domains',
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
  /** Domain the identity provider says manages this identity (PLATFORM_MANAGED_DOMAIN_CLAIM), lower case, when
   * asserted. */
  managedDomain?: string;
}

/**
 * Permissions a group grants in its organization.
 * Source: spec/platform-service.md § Authentication rule 8 (permissions named).
 */
export const permissions = ['workflows:use', 'sessions:personal', 'organization:manage', 'agents:create'] as const;
/** One of {@link permissions}. */
export type Permission = (typeof permissions)[number];
export const PermissionSchema = Type.Union(permissions.map((p) => Type.Literal(p)), {
  description: `one of ${permissions.join(', ')}`,
});

/**
 * Agent roles, lowest first: a member's role on an agent is the highest their groups give.
 * Source: spec/platform-service.md § Authentication rule 8 (agent roles).
 */
export const agentRoles = ['reader', 'user', 'maintainer', 'administrator'] as const;
/** One of {@link agentRoles}. */
export type AgentRole = (typeof agentRoles)[number];
export const AgentRoleSchema = Type.Union(agentRoles.map((r) => Type.Literal(r)), {
  description: `one of ${agentRoles.join(', ')}`,
});

/** The agent of an agent-role grant: an agent id, or `*` for every agent of the organization. */
export const AgentRef = Type.String({
  pattern: '^(\\*|[A-Za-z0-9][A-Za-z0-9_.-]{0,99})$',
  description: 'an agent id (letters, digits, _ . -; at most 100) or * for every agent',
});

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
  /** False until its built-in groups and first owner are stored (a crash or a race in between is finished by the next
   * ensure). */
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

/** A group: the permissions and agent roles its members get. Built-in groups have `builtin` and the id `<orgId>.<key>`.
 */
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

/** Who made an invitation or added a domain, as they were signed in then. */
export const PersonStamp = Type.Object({
  subject: Type.String(),
  email: Type.String(),
  name: Type.Optional(Type.String()),
});
export type PersonStamp = Static<typeof PersonStamp>;

/** Stored states of an invitation (`expired` is derived from `expiresAt` when read). */
export type StoredInvitationStatus = 'pending' | 'accepted' | 'dismissed' | 'revoked';

/**
 * An invitation: an offer to one e-mail address to join `orgId` into `groupIds`. Only the digest of its
 * link token is kept. `slot` is `<orgId>:<email>` while pending (unique, so one pending offer per address
 * and organization) and the invitation's own id once decided. `source` is `domain` for auto-onboarding's offer.
 * Source: spec/platform-service.md § Authentication rules 5 and 7.
 */
export const InvitationRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: SchemaVersion,
  orgId: Type.String(),
  /** Lower case. */
  email: Type.String(),
  groupIds: Type.Array(Type.String()),
  source: Type.Union([Type.Literal('invitation'), Type.Literal('domain')]),
  tokenDigest: Type.String(),
  slot: Type.String(),
  status: Type.Union([
    Type.Literal('pending'),
    Type.Literal('accepted'),
    Type.Literal('dismissed'),
    Type.Literal('revoked'),
  ]),
  invitedBy: PersonStamp,
  createdAt: Type.Date(),
  expiresAt: Type.Date(),
  decidedAt: Type.Optional(Type.Date()),
  /** Subject of who accepted, dismissed or revoked it. */
  decidedBy: Type.Optional(Type.String()),
});
export type InvitationRecord = Static<typeof InvitationRecord>;

/**
 * An e-mail domain an organization claims; `_id` is `<orgId>:<domain>`. Verified when the TXT record
 * `_cairn-verification.<domain>` holds `txtValue` (or at once with PLATFORM_DNS_VERIFICATION off).
 * Auto-onboarding is off until an Organization Owner turns it on.
 * Source: spec/platform-service.md § Authentication rule 5, § Deployment settings (PLATFORM_DNS_VERIFICATION).
 */
export const DomainRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: SchemaVersion,
  orgId: Type.String(),
  /** Lower case, without a trailing dot. */
  domain: Type.String(),
  txtValue: Type.String(),
  verifiedAt: Type.Optional(Type.Date()),
  lastCheck: Type.Optional(Type.Object({ at: Type.Date(), message: Type.String() })),
  autoOnboarding: Type.Boolean(),
  defaultGroupId: Type.String(),
  addedBy: PersonStamp,
  addedAt: Type.Date(),
});
export type DomainRecord = Static<typeof DomainRecord>;

/** Which organization a domain is verified for: `_id` is the domain, so a domain is verified for one organization at
 * most. */
export const VerifiedDomainRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: SchemaVersion,
  orgId: Type.String(),
  verifiedAt: Type.Date(),
});
export type VerifiedDomainRecord = Static<typeof VerifiedDomainRecord>;
