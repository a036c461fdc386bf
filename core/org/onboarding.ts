/**
 * What a signed-in person (oidc or cloud-alb) gets on their first sign-in: a personal organization, or,
 * when auto-onboarding applies, an offer of membership in the organization of their domain and no
 * personal organization unless they dismiss it.
 *
 * Auto-onboarding applies to a first sign-in (no personal organization and no membership yet) with an
 * address at exactly a domain verified for an organization that has turned auto-onboarding on, through an
 * account that domain manages (the managed-domain claim names the same domain). The offer is an
 * invitation (source `domain`) into the domain's default group, decided like any other.
 *
 * Source: spec/platform-service.md § Authentication rules 5 and 7; docs/decisions.md D7 § Organizations and
 * roles.
 */
import { onboardingDomain } from './domains.ts';
import { createInvitation, invitationState, isMember } from './invitations.ts';
import {
  type InvitationRecord,
  type MemberRecord,
  type OrganizationRecord,
  type OrgCaller,
  orgCollections,
  type OrgDeps,
} from './model.ts';
import { ensurePersonalOrganization } from './organizations.ts';
import { builtinGroupId } from './rules.ts';
import { getGroup } from './members.ts';
import { isPlatformError } from '../ports/platform-error.ts';

/** Where a signed-in person stands: `ready` (an organization to work in), or `offered` (an auto-onboarding offer awaits
 * their decision). */
export type SignedInState = 'ready' | 'offered';

/**
 * Prepares `caller` on a request: their personal organization (created once, race-safe), unless an
 * auto-onboarding offer is pending (`offered`: asked again on their next request) or they accepted one.
 */
export async function prepareSignedIn(deps: OrgDeps, caller: OrgCaller): Promise<SignedInState> {
  const personal = await deps.docs.collection<OrganizationRecord>(orgCollections.organizations).findOne({
    key: `personal:${caller.subject}`,
  });
  if (personal) {
    if (!personal.setupComplete) await ensurePersonalOrganization(deps, caller);
    return 'ready';
  }
  const email = caller.email.toLowerCase();
  const offers = await deps.docs.collection<InvitationRecord>(orgCollections.invitations).find({
    email,
    source: 'domain',
  }, { sort: { createdAt: -1 } });
  const now = deps.clock.now();
  for (const offer of offers) {
    if (offer.status === 'accepted' && await isMember(deps, offer.orgId, caller)) return 'ready';
    if (invitationState(offer, now) === 'pending') return 'offered';
  }
  if (offers.length === 0 && await offerMembership(deps, caller, email)) return 'offered';
  await ensurePersonalOrganization(deps, caller);
  return 'ready';
}

/** Stores the auto-onboarding offer for a first sign-in it applies to; true when one now awaits the caller. */
async function offerMembership(deps: OrgDeps, caller: OrgCaller, email: string): Promise<boolean> {
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (!caller.managedDomain || caller.managedDomain !== domain) return false;
  const record = await onboardingDomain(deps, domain);
  if (!record) return false;
  const memberships = await deps.docs.collection<MemberRecord>(orgCollections.members).find(
    { subject: caller.subject },
    { limit: 1 },
  );
  if (memberships.length > 0) return false;
  const invitations = deps.docs.collection<InvitationRecord>(orgCollections.invitations);
  // A manager's invitation to this address is pending already: that one is the person's offer; they get their own
  // organization meanwhile.
  if (await invitations.findOne({ slot: `${record.orgId}:${email}` })) return false;
  const group = await getGroup(deps, record.orgId, record.defaultGroupId).catch((error: unknown) => {
    if (isPlatformError(error, 'not_found')) return undefined;
    throw error;
  });
  const offeredBy = {
    subject: record.addedBy.subject,
    email: record.addedBy.email,
    ...(record.addedBy.name ? { name: record.addedBy.name } : {}),
  };
  try {
    await createInvitation(
      deps,
      offeredBy,
      { orgId: record.orgId, email, groupIds: [group?._id ?? builtinGroupId(record.orgId, 'user')], source: 'domain' },
    );
  } catch (error) {
    // Another request of the same first sign-in stored the offer at the same moment.
    if (!isPlatformError(error, 'conflict')) throw error;
  }
  return true;
}
