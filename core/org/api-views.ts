/**
 * Answer shapes of GET /api/orgs (bins/api/org-routes.ts), shared with the web app.
 *
 * Source: spec/platform-service.md § Authentication rule 8; docs/decisions.md D7 § Organizations and roles.
 */
import { type Static, Type } from '@sinclair/typebox';

/** An organization the caller belongs to; `createdAt` ISO-8601. */
export const OrganizationView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: Type.Union([Type.Literal('default'), Type.Literal('personal'), Type.Literal('shared')]),
  createdAt: Type.String(),
});
export type OrganizationView = Static<typeof OrganizationView>;

/** GET /api/orgs. */
export const OrganizationListAnswer = Type.Object({ organizations: Type.Array(OrganizationView) });
export type OrganizationListAnswer = Static<typeof OrganizationListAnswer>;

/** A group named in a view: its id and name. */
export const GroupRef = Type.Object({ id: Type.String(), name: Type.String() });
export type GroupRef = Static<typeof GroupRef>;

/** Who did something: their e-mail and name (null when the sign-in gave none). */
export const PersonRef = Type.Object({ email: Type.String(), name: Type.Union([Type.String(), Type.Null()]) });
export type PersonRef = Static<typeof PersonRef>;

/**
 * An organization with what the caller holds in it (GET /api/orgs/:org, POST /api/orgs).
 * `you.owner` is true when the caller is in the built-in Organization Owner group (only an owner turns
 * auto-onboarding on).
 */
export const OrganizationDetail = Type.Composite([
  OrganizationView,
  Type.Object({
    you: Type.Object({
      memberId: Type.String(),
      permissions: Type.Array(Type.String()),
      groups: Type.Array(GroupRef),
      owner: Type.Boolean(),
    }),
  }),
]);
export type OrganizationDetail = Static<typeof OrganizationDetail>;

/** A member (GET …/members); `groups` are group ids; `addedAt` ISO-8601. */
export const MemberView = Type.Object({
  id: Type.String(),
  subject: Type.String(),
  email: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  groups: Type.Array(Type.String()),
  addedAt: Type.String(),
});
export type MemberView = Static<typeof MemberView>;

/** GET /api/orgs/:org/members. */
export const MemberListAnswer = Type.Object({ members: Type.Array(MemberView) });
export type MemberListAnswer = Static<typeof MemberListAnswer>;

/** A group (GET …/groups): `builtin` is owner | administrator | maintainer | user or null; `members` are member ids. */
export const GroupView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  builtin: Type.Union([Type.String(), Type.Null()]),
  permissions: Type.Array(Type.String()),
  agentRoles: Type.Array(Type.Object({ agent: Type.String(), role: Type.String() })),
  members: Type.Array(Type.String()),
});
export type GroupView = Static<typeof GroupView>;

/** GET /api/orgs/:org/groups. */
export const GroupListAnswer = Type.Object({ groups: Type.Array(GroupView) });
export type GroupListAnswer = Static<typeof GroupListAnswer>;

/**
 * State of an invitation: `pending` until the holder of the address joins (`accepted`) or declines
 * (`dismissed`), an Organization manager revokes it (`revoked`), or it passes `expiresAt` (`expired`).
 */
export const InvitationStatus = Type.Union(
  ['pending', 'accepted', 'dismissed', 'revoked', 'expired'].map((s) => Type.Literal(s)),
);
export type InvitationStatus = 'pending' | 'accepted' | 'dismissed' | 'revoked' | 'expired';

/**
 * An invitation as its organization's managers see it (GET /api/orgs/:org/invitations). `source` is
 * `invitation` (sent by a manager) or `domain` (auto-onboarding's offer to a person of a verified domain).
 * Dates ISO-8601.
 */
export const InvitationView = Type.Object({
  id: Type.String(),
  email: Type.String(),
  groups: Type.Array(GroupRef),
  status: InvitationStatus,
  source: Type.Union([Type.Literal('invitation'), Type.Literal('domain')]),
  invitedBy: PersonRef,
  createdAt: Type.String(),
  expiresAt: Type.String(),
  decidedAt: Type.Union([Type.String(), Type.Null()]),
});
export type InvitationView = Static<typeof InvitationView>;

/** GET /api/orgs/:org/invitations: newest first, at most 200. */
export const InvitationListAnswer = Type.Object({ invitations: Type.Array(InvitationView) });
export type InvitationListAnswer = Static<typeof InvitationListAnswer>;

/**
 * POST /api/orgs/:org/invitations answer: the invitation and its link (`<APP_BASE_URL>/invite/<token>`),
 * shown once; only its digest is stored. A second invitation to the same address replaces a pending one.
 */
export const InvitationCreated = Type.Object({ invitation: InvitationView, link: Type.String() });
export type InvitationCreated = Static<typeof InvitationCreated>;

/**
 * What the consent screen shows of an invitation (GET /api/invitations/link/:token, GET /api/invitations):
 * the organization, who invited, the groups, the address it is for, and whether the signed-in caller
 * holds that address (`forYou`) or is already a member (`alreadyMember`).
 */
export const InvitationOffer = Type.Object({
  id: Type.String(),
  organization: Type.Object({ id: Type.String(), name: Type.String() }),
  email: Type.String(),
  groups: Type.Array(GroupRef),
  status: InvitationStatus,
  source: Type.Union([Type.Literal('invitation'), Type.Literal('domain')]),
  invitedBy: PersonRef,
  expiresAt: Type.String(),
  signedInAs: Type.String(),
  forYou: Type.Boolean(),
  alreadyMember: Type.Boolean(),
});
export type InvitationOffer = Static<typeof InvitationOffer>;

/** GET /api/invitations: the pending offers addressed to the caller's verified address. */
export const InvitationOfferList = Type.Object({ invitations: Type.Array(InvitationOffer) });
export type InvitationOfferList = Static<typeof InvitationOfferList>;

/** POST …/join and …/dismiss answer: the invitation's state after the decision, and the organization joined. */
export const InvitationDecision = Type.Object({
  status: InvitationStatus,
  organization: Type.Object({ id: Type.String(), name: Type.String() }),
  memberId: Type.Union([Type.String(), Type.Null()]),
});
export type InvitationDecision = Static<typeof InvitationDecision>;

/**
 * An organization's e-mail domain (GET /api/orgs/:org/domains). `txtName` and `txtValue` are the DNS TXT
 * record that verifies it (`_cairn-verification.<domain>`); `lastCheck` says what the last verification
 * found. `autoOnboarding` is off until an Organization Owner turns it on; `defaultGroup` is the group an
 * onboarded person is offered. Dates ISO-8601.
 */
export const DomainView = Type.Object({
  domain: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('verified')]),
  txtName: Type.String(),
  txtValue: Type.String(),
  verifiedAt: Type.Union([Type.String(), Type.Null()]),
  lastCheck: Type.Union([Type.Object({ at: Type.String(), message: Type.String() }), Type.Null()]),
  autoOnboarding: Type.Boolean(),
  defaultGroup: GroupRef,
  addedBy: PersonRef,
  addedAt: Type.String(),
});
export type DomainView = Static<typeof DomainView>;

/** GET /api/orgs/:org/domains; `dnsVerification` mirrors PLATFORM_DNS_VERIFICATION (off: a domain is verified when
 * added). */
export const DomainListAnswer = Type.Object({ domains: Type.Array(DomainView), dnsVerification: Type.Boolean() });
export type DomainListAnswer = Static<typeof DomainListAnswer>;
