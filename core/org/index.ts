/**
 * Organizations, members, groups and roles (public edge of `core/org`): what every surface checks
 * before acting.
 *
 * Source: spec/platform-service.md § Authentication rule 8; docs/decisions.md D7 § Organizations and roles.
 */
export {
  agentRoles,
  builtinGroupKeys,
  orgCollections,
  orgSchemaVersion,
  permissions,
  AgentRoleGrant,
  AgentRoleSchema,
  PermissionSchema,
  type AgentRole,
  type BuiltinGroupKey,
  type GroupMemberRecord,
  type GroupRecord,
  type MemberRecord,
  type DomainRecord,
  type InvitationRecord,
  type OrgCaller,
  type PersonStamp,
  type OrgDeps,
  type OrganizationKind,
  type OrganizationRecord,
  type Permission,
} from './model.ts';
export { agentRoleNames, builtinGroupId, builtinGroups, effectiveAgentRole, effectivePermissions, highestRole, roleAtLeast, roleRank } from './rules.ts';
export { orgAccess, requireAgentRole, requirePermission, type OrgAccess } from './access.ts';
export { createOrganization, defaultOrganizationKey, ensureDefaultOrganization, ensureOrgIndexes, ensurePersonalOrganization, listOrganizations } from './organizations.ts';
export { addMember, getGroup, getMember, listMembers, removeMember, type MemberWithGroups } from './members.ts';
export { addToGroup, createGroup, deleteGroup, listGroups, removeFromGroup, updateGroup, type GroupChange, type GroupView } from './groups.ts';
export {
  acceptInvitation, createInvitation, dismissInvitation, invitationByToken, invitationForCaller, invitationLifetimeMs, invitationListLimit,
  invitationState, isMember, listInvitations, normalEmail, offersFor, revokeInvitation, type InvitationDecisionResult, type InvitationState, type NewInvitation,
} from './invitations.ts';
export { addDomain, getDomain, listDomains, normalDomain, removeDomain, txtNameOf, updateDomain, verificationRecordPrefix, verifyDomain, type DomainDeps } from './domains.ts';
export { prepareSignedIn, type SignedInState } from './onboarding.ts';
