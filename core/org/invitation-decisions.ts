/**
 * The holder's side of invitations: finding one by its link token or among the offers to the caller's address, and
 * deciding it (Join, Dismiss), only by the holder of its verified address and only while it is open.
 *
 * Decisions are safe to repeat and to race: joining adds the member and their groups (each stored at most
 * once) before the invitation is marked accepted by a conditional update, so a crash in between leaves an
 * invitation the next Join finishes.
 *
 * Source: spec/platform-service.md § Authentication rules 4, 5 and 7; docs/decisions.md D10 § Members.
 */
import { PlatformError } from '../ports/platform-error.ts';
import { invitations, invitationState } from './invitations.ts';
import {
  type GroupRecord,
  type InvitationRecord,
  type MemberRecord,
  type OrganizationRecord,
  type OrgCaller,
  orgCollections,
  type OrgDeps,
} from './model.ts';
import { addMembership } from './members.ts';
import { ensureMember } from './organizations.ts';
import { builtinGroupId } from './rules.ts';

/** The refusal of a link nobody holds (never says whether one existed). */
const unknownLink = () =>
  new PlatformError(
    'invitation_not_found',
    'This invitation link is not valid (mistyped, or replaced by a newer invitation); ask whoever invited you for ' +
      'a new link.',
    { status: 404 },
  );

/** The invitation a link token names. @throws PlatformError `invitation_not_found` (404) */
export async function invitationByToken(deps: Pick<OrgDeps, 'docs' | 'ids'>, token: string): Promise<InvitationRecord> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) throw unknownLink();
  const found = await invitations(deps).findOne({ tokenDigest: await deps.ids.sha256Hex(token) });
  if (!found) throw unknownLink();
  return found;
}

/**
 * The invitation `id` addressed to `caller`'s address (the offers list's decisions).
 * @throws PlatformError `invitation_not_found` (404) for an id that is not an offer to the caller
 */
export async function invitationForCaller(
  deps: Pick<OrgDeps, 'docs'>,
  caller: OrgCaller,
  id: string,
): Promise<InvitationRecord> {
  const found = await invitations(deps).findOne({ _id: id, email: caller.email.toLowerCase() });
  if (!found) {
    throw new PlatformError(
      'invitation_not_found',
      'No invitation with that id is addressed to you; GET /api/invitations lists yours.',
      { status: 404 },
    );
  }
  return found;
}

/** The pending, unexpired offers to `caller`'s address, newest first. */
export async function offersFor(deps: Pick<OrgDeps, 'docs' | 'clock'>, caller: OrgCaller): Promise<InvitationRecord[]> {
  const now = deps.clock.now();
  const found = await invitations(deps).find({ email: caller.email.toLowerCase(), status: 'pending' }, {
    sort: { createdAt: -1, _id: 1 },
  });
  return found.filter((i) => invitationState(i, now) === 'pending');
}

/** Checks that `caller` holds the invitation's address. @throws PlatformError `invitation_other_address` (403) */
function assertHolder(invitation: InvitationRecord, caller: OrgCaller): void {
  if (caller.email.toLowerCase() === invitation.email) return;
  throw new PlatformError(
    'invitation_other_address',
    `This invitation is for ${invitation.email}, and you are signed in as ${caller.email}. Sign out, then sign in ` +
      `as ${invitation.email} to decide it.`,
    { status: 403 },
  );
}

/** Refuses a decision on an invitation no longer open. @throws `invitation_expired` (410); `invitation_closed` (409) */
function assertOpen(invitation: InvitationRecord, now: Date, wanted: 'accepted' | 'dismissed'): void {
  const state = invitationState(invitation, now);
  if (state === 'pending' || state === wanted) return;
  if (state === 'expired') {
    throw new PlatformError(
      'invitation_expired',
      `This invitation expired on ${
        invitation.expiresAt.toISOString().slice(0, 10)
      }; ask ${invitation.invitedBy.email} for a new one.`,
      { status: 410 },
    );
  }
  const how = state === 'accepted' ? 'was already accepted' : state === 'dismissed' ? 'was dismissed' : 'was withdrawn';
  throw new PlatformError(
    'invitation_closed',
    `This invitation ${how}; ask ${invitation.invitedBy.email} for a new one if you want to join.`,
    { status: 409 },
  );
}

/** The result of a decision: the invitation as stored after it, and the member record on Join. */
export interface InvitationDecisionResult {
  invitation: InvitationRecord;
  organization: OrganizationRecord;
  member?: MemberRecord;
}

/** The organization of `invitation`. @throws PlatformError `invitation_closed` (409) when it is gone */
async function organizationOf(deps: Pick<OrgDeps, 'docs'>, invitation: InvitationRecord): Promise<OrganizationRecord> {
  const org = await deps.docs.collection<OrganizationRecord>(orgCollections.organizations).findOne({
    _id: invitation.orgId,
  });
  if (!org) {
    throw new PlatformError('invitation_closed', 'The organization of this invitation no longer exists.', {
      status: 409,
    });
  }
  return org;
}

/**
 * Join: `caller`, holding the invitation's verified address, becomes a member of its organization in its
 * groups (groups deleted since fall back to the built-in User group). Joining again is answered the same.
 * @throws PlatformError `invitation_other_address` (403); `invitation_expired` (410); `invitation_closed` (409)
 */
export async function acceptInvitation(
  deps: OrgDeps,
  invitation: InvitationRecord,
  caller: OrgCaller,
): Promise<InvitationDecisionResult> {
  assertHolder(invitation, caller);
  const now = deps.clock.now();
  assertOpen(invitation, now, 'accepted');
  const organization = await organizationOf(deps, invitation);
  const groups = await deps.docs.collection<GroupRecord>(orgCollections.groups).find({
    orgId: invitation.orgId,
    _id: { $in: invitation.groupIds },
  });
  const groupIds = groups.length > 0 ? groups.map((g) => g._id) : [builtinGroupId(invitation.orgId, 'user')];
  const { member } = await ensureMember(deps, invitation.orgId, caller);
  if (invitation.status === 'pending') {
    for (const groupId of groupIds) await addMembership(deps, invitation.orgId, groupId, member._id);
    await invitations(deps).updateOne({ _id: invitation._id, status: 'pending' }, {
      $set: { status: 'accepted', slot: invitation._id, decidedAt: now, decidedBy: caller.subject },
    });
  }
  const stored = (await invitations(deps).findOne({ _id: invitation._id })) ?? invitation;
  if (stored.status !== 'accepted') assertOpen(stored, now, 'accepted');
  return { invitation: stored, organization, member };
}

/**
 * Dismiss: `caller`, holding the invitation's address, declines it. Dismissing again is answered the same.
 * @throws PlatformError `invitation_other_address` (403); `invitation_expired` (410); `invitation_closed` (409)
 */
export async function dismissInvitation(
  deps: OrgDeps,
  invitation: InvitationRecord,
  caller: OrgCaller,
): Promise<InvitationDecisionResult> {
  assertHolder(invitation, caller);
  const now = deps.clock.now();
  assertOpen(invitation, now, 'dismissed');
  const organization = await organizationOf(deps, invitation);
  await invitations(deps).updateOne({ _id: invitation._id, status: 'pending' }, {
    $set: { status: 'dismissed', slot: invitation._id, decidedAt: now, decidedBy: caller.subject },
  });
  const stored = (await invitations(deps).findOne({ _id: invitation._id })) ?? invitation;
  if (stored.status !== 'dismissed') assertOpen(stored, now, 'dismissed');
  return { invitation: stored, organization };
}
