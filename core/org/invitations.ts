/**
 * Invitations: an offer to one e-mail address to join an organization. A manager (organization:manage)
 * makes one and passes its link on; nobody joins until the holder of that verified address accepts it
 * (Join) on its consent page, Dismiss declines it, and signing in accepts nothing (the holder's side:
 * ./invitation-decisions.ts). A second invitation to the same address replaces a pending one. Only the digest of a
 * link's token is stored. This file holds the manager's side: make, list and revoke; and an invitation's state.
 *
 * Source: spec/platform-service.md § Authentication rules 4, 5 and 7; docs/decisions.md D10 § Members.
 */
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import {
  type InvitationRecord,
  type MemberRecord,
  type OrgCaller,
  orgCollections,
  type OrgDeps,
  orgSchemaVersion,
  type PersonStamp,
} from './model.ts';
import { getGroup } from './members.ts';
import { builtinGroupId } from './rules.ts';

/** How long an invitation stays open: 14 days, in milliseconds. */
export const invitationLifetimeMs = 14 * 24 * 3600 * 1000;
/** Random bytes of a link token (base64url, 43 characters). */
const tokenBytes = 32;
/** At most this many invitations are listed for an organization, newest first. */
export const invitationListLimit = 200;

/** An invitation's state when read: the stored one, or `expired` for a pending one past `expiresAt`. */
export type InvitationState = InvitationRecord['status'] | 'expired';

/** The state of `invitation` at `now`. */
export function invitationState(invitation: InvitationRecord, now: Date): InvitationState {
  return invitation.status === 'pending' && invitation.expiresAt.getTime() <= now.getTime()
    ? 'expired'
    : invitation.status;
}

/** `person` as stored on a record. */
export function stampOf(person: OrgCaller): PersonStamp {
  return { subject: person.subject, email: person.email, ...(person.name ? { name: person.name } : {}) };
}

/** The lower-case form of an address, after checking its shape. @throws PlatformError `invalid_argument` (400) */
export function normalEmail(email: string): string {
  const address = email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address) || address.length > 320) {
    throw new PlatformError(
      'invalid_argument',
      `"${email.slice(0, 80)}" is not an e-mail address; give one like name@example.com.`,
      { status: 400 },
    );
  }
  return address;
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The `org_invitations` collection. */
export const invitations = (deps: Pick<OrgDeps, 'docs'>) =>
  deps.docs.collection<InvitationRecord>(orgCollections.invitations);
const pendingSlot = (orgId: string, email: string) => `${orgId}:${email}`;

/** What {@link createInvitation} gives: the stored invitation and its raw link token (shown once). */
export interface NewInvitation {
  invitation: InvitationRecord;
  token: string;
}

/** What {@link createInvitation} stores: who is invited where. */
export interface InvitationRequest {
  /** The organization invited into. */
  orgId: string;
  /** The invited address (trimmed and lower-cased; a malformed one is refused). */
  email: string;
  /** Groups of the organization the invitation adds them to. Default: the built-in User group. */
  groupIds?: readonly string[];
  /** `domain` for auto-onboarding's offer. Default `invitation`. */
  source?: InvitationRecord['source'];
}

/**
 * Stores a pending invitation of `email` into `groupIds` of `orgId` (default: the built-in User group),
 * revoking a pending one to the same address first. The caller has been checked for organization:manage.
 * @throws PlatformError `invalid_argument` (400) for a malformed address; `not_found` (404) for a group not
 *   in the organization; `already_member` (409) when a member has that address; `conflict` (409) when
 *   another invitation to it was stored at the same moment
 */
export async function createInvitation(
  deps: OrgDeps,
  inviter: OrgCaller,
  { orgId, email, groupIds, source = 'invitation' }: InvitationRequest,
): Promise<NewInvitation> {
  const address = normalEmail(email);
  const wanted = [...new Set(groupIds?.length ? groupIds : [builtinGroupId(orgId, 'user')])];
  for (const id of wanted) await getGroup(deps, orgId, id);
  const members = await deps.docs.collection<MemberRecord>(orgCollections.members).find({ orgId });
  if (members.some((m) => m.email.toLowerCase() === address)) {
    throw new PlatformError(
      'already_member',
      `${address} is already a member of this organization; change their groups instead.`,
      { status: 409 },
    );
  }
  const now = deps.clock.now();
  const slot = pendingSlot(orgId, address);
  const previous = await invitations(deps).findOne({ slot });
  if (previous) {
    await invitations(deps).updateOne({ _id: previous._id, slot }, {
      $set: { status: 'revoked', slot: previous._id, decidedAt: now, decidedBy: inviter.subject },
    });
  }
  const token = base64url(deps.ids.randomBytes(tokenBytes));
  const invitation: InvitationRecord = {
    _id: deps.ids.newId(),
    schemaVersion: orgSchemaVersion,
    orgId,
    email: address,
    groupIds: wanted.sort(),
    source,
    tokenDigest: await deps.ids.sha256Hex(token),
    slot,
    status: 'pending',
    invitedBy: stampOf(inviter),
    createdAt: now,
    expiresAt: new Date(now.getTime() + invitationLifetimeMs),
  };
  try {
    await invitations(deps).insertOne(invitation);
  } catch (error) {
    if (isPlatformError(error, 'duplicate_key')) {
      throw new PlatformError(
        'conflict',
        `Another invitation to ${address} was made at the same moment; list the invitations and retry if needed.`,
        { status: 409 },
      );
    }
    throw error;
  }
  return { invitation, token };
}

/** The invitations of `orgId`, newest first (at most {@link invitationListLimit}). */
export async function listInvitations(deps: Pick<OrgDeps, 'docs'>, orgId: string): Promise<InvitationRecord[]> {
  return invitations(deps).find({ orgId }, { sort: { createdAt: -1, _id: 1 }, limit: invitationListLimit });
}

/**
 * Revokes the pending invitation `id` of `orgId` (its link stops working); revoking a decided one changes nothing.
 * @throws PlatformError `not_found` (404)
 */
export async function revokeInvitation(
  deps: OrgDeps,
  orgId: string,
  id: string,
  by: OrgCaller,
): Promise<InvitationRecord> {
  const found = await invitations(deps).findOne({ orgId, _id: id });
  if (!found) {
    throw new PlatformError(
      'not_found',
      'No such invitation in this organization; GET /api/orgs/<org>/invitations lists them.',
      { status: 404 },
    );
  }
  if (found.status !== 'pending') return found;
  const now = deps.clock.now();
  await invitations(deps).updateOne({ _id: id, status: 'pending' }, {
    $set: { status: 'revoked', slot: id, decidedAt: now, decidedBy: by.subject },
  });
  return (await invitations(deps).findOne({ _id: id })) ?? found;
}

/** Whether `caller` is a member of `orgId`. */
export async function isMember(
  deps: Pick<OrgDeps, 'docs'>,
  orgId: string,
  caller: Pick<OrgCaller, 'subject'>,
): Promise<boolean> {
  return (await deps.docs.collection<MemberRecord>(orgCollections.members).findOne({
    orgId,
    subject: caller.subject,
  })) !== null;
}
