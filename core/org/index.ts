/**
 * Organizations, members, groups and roles (public edge of `core/org`): what every surface checks
 * before acting.
 *
 * Source: spec/platform-service.md § Authentication rule 8; docs/decisions.md D7 § Organizations and roles.
 */
export {
  type AgentRole,
  AgentRoleGrant,
  agentRoles,
  AgentRoleSchema,
  type BuiltinGroupKey,
  builtinGroupKeys,
  type DomainRecord,
  type GroupMemberRecord,
  type GroupRecord,
  type InvitationRecord,
  type MemberRecord,
  type OrganizationKind,
  type OrganizationRecord,
  type OrgCaller,
  orgCollections,
  type OrgDeps,
  orgSchemaVersion,
  type Permission,
  permissions,
  PermissionSchema,
  type PersonStamp,
} from './model.ts';
export {
  agentRoleNames,
  builtinGroupId,
  builtinGroups,
  effectiveAgentRole,
  effectivePermissions,
  highestRole,
  roleAtLeast,
  roleRank,
} from './rules.ts';
export { type OrgAccess, orgAccess, requireAgentRole, requirePermission } from './access.ts';
export {
  createOrganization,
  defaultOrganizationKey,
  ensureDefaultOrganization,
  ensureOrgIndexes,
  ensurePersonalOrganization,
  listOrganizations,
} from './organizations.ts';
export { addMember, getGroup, getMember, listMembers, type MemberWithGroups, removeMember } from './members.ts';
export {
  addToGroup,
  createGroup,
  deleteGroup,
  type GroupChange,
  type GroupView,
  listGroups,
  removeFromGroup,
  updateGroup,
} from './groups.ts';
export {
  createInvitation,
  invitationLifetimeMs,
  invitationListLimit,
  type InvitationState,
  invitationState,
  isMember,
  listInvitations,
  type NewInvitation,
  normalEmail,
  revokeInvitation,
} from './invitations.ts';
export {
  acceptInvitation,
  dismissInvitation,
  invitationByToken,
  type InvitationDecisionResult,
  invitationForCaller,
  offersFor,
} from './invitation-decisions.ts';
export {
  addDomain,
  type DomainDeps,
  getDomain,
  listDomains,
  normalDomain,
  removeDomain,
  txtNameOf,
  updateDomain,
  verificationRecordPrefix,
  verifyDomain,
} from './domains.ts';
export { prepareSignedIn, type SignedInState } from './onboarding.ts';
