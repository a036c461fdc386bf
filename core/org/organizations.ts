/**
 * Organizations: creation (the creator becomes its Organization Owner), the dev-user default
 * organization, the personal organization of a first sign-in, lookups, and the indexes.
 *
 * Creation is idempotent and safe when two requests race: the organization's `key` is unique, every
 * later step (built-in groups with fixed ids, the owner's member record unique by subject, the
 * membership with a fixed id) stores at most one record, and `setupComplete` is set last, so the
 * loser of a race, or the next call after a crash, finishes the same organization.
 *
 * Source: spec/platform-service.md § Authentication rules 5 and 8, § Platform sign-in modes;
 * docs/decisions.md D7.
 */
import type { DocumentStore, Versioned } from '../ports/document-store.ts';
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import {
  type GroupMemberRecord,
  type GroupRecord,
  type MemberRecord,
  type OrganizationKind,
  type OrganizationRecord,
  type OrgCaller,
  orgCollections,
  type OrgDeps,
  orgSchemaVersion,
} from './model.ts';
import { builtinGroupId, builtinGroups, membershipId } from './rules.ts';

/** Key of the dev-user default organization. */
export const defaultOrganizationKey = 'default';

/** Declares the indexes of the organization collections (idempotent; run at boot). */
export async function ensureOrgIndexes(docs: DocumentStore): Promise<void> {
  await docs.collection(orgCollections.organizations).createIndex({ key: 1 }, { unique: true });
  await docs.collection(orgCollections.members).createIndex({ orgId: 1, subject: 1 }, { unique: true });
  await docs.collection(orgCollections.members).createIndex({ subject: 1 });
  await docs.collection(orgCollections.groups).createIndex({ orgId: 1, name: 1 }, { unique: true });
  await docs.collection(orgCollections.groupMembers).createIndex({ orgId: 1, memberId: 1 });
  await docs.collection(orgCollections.groupMembers).createIndex({ groupId: 1 });
  await docs.collection(orgCollections.invitations).createIndex({ slot: 1 }, { unique: true });
  await docs.collection(orgCollections.invitations).createIndex({ tokenDigest: 1 }, { unique: true });
  await docs.collection(orgCollections.invitations).createIndex({ email: 1, status: 1 });
  await docs.collection(orgCollections.invitations).createIndex({ orgId: 1, createdAt: -1 });
  await docs.collection(orgCollections.domains).createIndex({ orgId: 1, domain: 1 });
}

/** Inserts `doc`, treating an existing record (same id or unique key) as done; true when this call stored it. */
export async function insertOnce<T extends { _id: string }>(
  docs: DocumentStore,
  collection: string,
  doc: T & Versioned,
): Promise<boolean> {
  try {
    await docs.collection<T>(collection).insertOne(doc);
    return true;
  } catch (error) {
    if (isPlatformError(error, 'duplicate_key')) return false;
    throw error;
  }
}

/**
 * The member record of `caller` in `orgId`, stored when missing (race-safe: unique by subject).
 * @returns the member record and whether this call stored it
 */
export async function ensureMember(
  deps: OrgDeps,
  orgId: string,
  caller: OrgCaller,
): Promise<{ member: MemberRecord; added: boolean }> {
  const members = deps.docs.collection<MemberRecord>(orgCollections.members);
  const existing = await members.findOne({ orgId, subject: caller.subject });
  if (existing) return { member: existing, added: false };
  const record: MemberRecord = {
    _id: deps.ids.newId(),
    schemaVersion: orgSchemaVersion,
    orgId,
    subject: caller.subject,
    email: caller.email,
    ...(caller.name ? { name: caller.name } : {}),
    addedAt: deps.clock.now(),
  };
  if (await insertOnce(deps.docs, orgCollections.members, record)) return { member: record, added: true };
  const stored = await members.findOne({ orgId, subject: caller.subject });
  if (!stored) {
    throw new PlatformError('conflict', 'The member record changed while it was being added; retry.', { status: 409 });
  }
  return { member: stored, added: false };
}

/** Stores the built-in groups and `owner` as Organization Owner (each step at most once), then marks the organization
 * set up. */
async function finishSetup(deps: OrgDeps, org: OrganizationRecord, owner: OrgCaller): Promise<OrganizationRecord> {
  const now = deps.clock.now();
  for (const g of builtinGroups) {
    const group: GroupRecord = {
      _id: builtinGroupId(org._id, g.key),
      schemaVersion: orgSchemaVersion,
      orgId: org._id,
      name: g.name,
      builtin: g.key,
      permissions: [...g.permissions],
      agentRoles: g.agentRoles.map((a) => ({ ...a })),
      createdAt: now,
    };
    await insertOnce(deps.docs, orgCollections.groups, group);
  }
  const { member } = await ensureMember(deps, org._id, owner);
  const groupId = builtinGroupId(org._id, 'owner');
  const membership: GroupMemberRecord = {
    _id: membershipId(groupId, member._id),
    schemaVersion: orgSchemaVersion,
    orgId: org._id,
    groupId,
    memberId: member._id,
    addedAt: now,
  };
  await insertOnce(deps.docs, orgCollections.groupMembers, membership);
  await deps.docs.collection<OrganizationRecord>(orgCollections.organizations).updateOne({ _id: org._id }, {
    $set: { setupComplete: true },
  });
  return { ...org, setupComplete: true };
}

/** The organization {@link ensureOrganization} finds by `key` or creates. */
interface OrganizationToEnsure {
  /** Its unique key (`personal:<subject>`, `shared:<id>`, or the default organization's). */
  key: string;
  /** Personal, shared or default. */
  kind: OrganizationKind;
  /** Its display name when it is created (an existing organization keeps its own). */
  name: string;
}

/**
 * The organization with `key`, created with `owner` as its Organization Owner when missing; idempotent
 * and race-safe (see the module comment). A set-up organization is returned as it is (its owner may
 * since have left it; nobody is added back).
 */
async function ensureOrganization(
  deps: OrgDeps,
  owner: OrgCaller,
  { key, kind, name }: OrganizationToEnsure,
): Promise<OrganizationRecord> {
  const orgs = deps.docs.collection<OrganizationRecord>(orgCollections.organizations);
  let org = await orgs.findOne({ key });
  if (!org) {
    const record: OrganizationRecord = {
      _id: deps.ids.newId(),
      schemaVersion: orgSchemaVersion,
      key,
      name,
      kind,
      createdAt: deps.clock.now(),
      createdBy: owner.subject,
      setupComplete: false,
    };
    org = (await insertOnce(deps.docs, orgCollections.organizations, record)) ? record : await orgs.findOne({ key });
    if (!org) {
      throw new PlatformError('conflict', `Organization ${key} changed while it was being created; retry.`, {
        status: 409,
      });
    }
  }
  if (org.setupComplete) return org;
  if (org.createdBy !== owner.subject) {
    throw new PlatformError(
      'conflict',
      `Organization "${org.name}" is being set up for another person; retry once it is.`,
      { status: 409 },
    );
  }
  return finishSetup(deps, org, owner);
}

/**
 * Creates an organization named `name`; `caller` becomes its Organization Owner.
 * @throws PlatformError `invalid_argument` (400) for an empty name or one over 200 characters
 */
export async function createOrganization(deps: OrgDeps, caller: OrgCaller, name: string): Promise<OrganizationRecord> {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > 200) {
    throw new PlatformError('invalid_argument', 'An organization name must be 1 to 200 characters.', { status: 400 });
  }
  const id = deps.ids.newId();
  return ensureOrganization(deps, caller, { key: `shared:${id}`, kind: 'shared', name: trimmed });
}

/**
 * Under dev-user sign-in: the default organization, owned by the fixed user, created at first boot
 * (idempotent; later boots return it unchanged).
 * Source: docs/decisions.md D7 § Organizations and roles (dev-user default organization).
 */
export async function ensureDefaultOrganization(deps: OrgDeps, devUser: OrgCaller): Promise<OrganizationRecord> {
  return ensureOrganization(deps, devUser, {
    key: defaultOrganizationKey,
    kind: 'default',
    name: 'Default organization',
  });
}

/**
 * Under oidc or cloud-alb sign-in: the personal organization of `caller`, created on their first
 * sign-in (idempotent; two racing first requests create one).
 * Source: spec/platform-service.md § Authentication rule 5 (a first sign-in gets a personal organization).
 */
export async function ensurePersonalOrganization(deps: OrgDeps, caller: OrgCaller): Promise<OrganizationRecord> {
  const who = caller.name?.trim() || caller.email;
  return ensureOrganization(deps, caller, {
    key: `personal:${caller.subject}`,
    kind: 'personal',
    name: `${who.slice(0, 180)} (personal)`,
  });
}

/** The organizations `caller` is a member of, by name. */
export async function listOrganizations(
  deps: Pick<OrgDeps, 'docs'>,
  caller: Pick<OrgCaller, 'subject'>,
): Promise<OrganizationRecord[]> {
  const memberships = await deps.docs.collection<MemberRecord>(orgCollections.members).find({
    subject: caller.subject,
  });
  if (memberships.length === 0) return [];
  return deps.docs.collection<OrganizationRecord>(orgCollections.organizations).find({
    _id: { $in: memberships.map((m) => m.orgId) },
  }, { sort: { name: 1, _id: 1 } });
}
