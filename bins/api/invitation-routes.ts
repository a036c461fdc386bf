/**
 * JSON routes of invitations and organization domains:
 * - organization managers (organization:manage): GET|POST /api/orgs/:org/invitations, DELETE …/invitations/:id;
 *   GET|POST /api/orgs/:org/domains, POST …/domains/:domain/verify, PUT|DELETE …/domains/:domain;
 * - the invited person: GET /api/invitations (offers to their address), GET /api/invitations/link/:token
 *   (the consent screen's read; reading accepts nothing), POST /api/invitations/link/:token/join|dismiss and
 *   POST /api/invitations/:id/join|dismiss.
 * Errors answer `{error: {code, message}}` with the statuses the core use cases name.
 *
 * Source: spec/platform-service.md § Endpoints (GET /api/invitations/link/<token>), § Authentication
 * rules 4, 5, 7 and 8, § Deployment settings (APP_BASE_URL, PLATFORM_DNS_VERIFICATION); docs/decisions.md D10 §
 * Members.
 */
import { Type } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import type {
  DomainListAnswer, DomainView, InvitationCreated, InvitationDecision, InvitationListAnswer, InvitationOffer, InvitationOfferList, InvitationView, PersonRef,
} from '../../core/org/api-views.ts';
import {
  acceptInvitation, addDomain, createInvitation, dismissInvitation, invitationByToken, invitationForCaller, invitationState, isMember, listDomains,
  listGroups, listInvitations, offersFor, orgCollections, removeDomain, requirePermission, revokeInvitation, txtNameOf, updateDomain, verifyDomain,
  type DomainDeps, type DomainRecord, type GroupRecord, type InvitationDecisionResult, type InvitationRecord, type OrganizationRecord, type OrgCaller, type PersonStamp,
} from '../../core/org/index.ts';
import { callerRoutes, type CallerRouteDeps } from './caller-route.ts';
import { json, readJson } from './http-helpers.ts';

/** Dependencies of the invitation and domain routes. */
export interface InvitationRouteDeps extends CallerRouteDeps<OrgCaller> {
  deps: DomainDeps;
  /** APP_BASE_URL: the origin invitation links name (default: the request's own origin). */
  appBaseUrl?: string;
}

const InviteBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 320 }),
  groups: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 50 })),
}, { additionalProperties: false });
const DomainBody = Type.Object({ domain: Type.String({ minLength: 3, maxLength: 253 }) }, { additionalProperties: false });
const DomainChange = Type.Object({ autoOnboarding: Type.Optional(Type.Boolean()), defaultGroup: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }, { additionalProperties: false, minProperties: 1 });

type Org = { org: string };
const noParse = { parse: 'none' as const };

/** Mounts the routes (behind the request rules: sign-in, cross-site refusal, body limits). */
export function invitationRoutes(env: InvitationRouteDeps) {
  return new Elysia().use(orgInvitationRoutes(env)).use(domainRoutes(env)).use(offerRoutes(env));
}

const personRef = (p: PersonStamp): PersonRef => ({ email: p.email, name: p.name ?? null });
const groupRefs = (ids: string[], groups: GroupRecord[]) => ids.map((id) => ({ id, name: groups.find((g) => g._id === id)?.name ?? '(deleted group)' }));
const groupsOf = async (deps: DomainDeps, orgId: string) => (await listGroups(deps, orgId)).map((g) => g.group);

function invitationView(invitation: InvitationRecord, groups: GroupRecord[], now: Date): InvitationView {
  return {
    id: invitation._id, email: invitation.email, groups: groupRefs(invitation.groupIds, groups), status: invitationState(invitation, now), source: invitation.source,
    invitedBy: personRef(invitation.invitedBy), createdAt: invitation.createdAt.toISOString(), expiresAt: invitation.expiresAt.toISOString(),
    decidedAt: invitation.decidedAt ? invitation.decidedAt.toISOString() : null,
  };
}

/** GET|POST /api/orgs/:org/invitations, DELETE …/invitations/:id. */
function orgInvitationRoutes(env: InvitationRouteDeps) {
  const { deps } = env;
  const route = callerRoutes(env);
  const manage = (caller: OrgCaller, orgId: string) => requirePermission(deps, caller, orgId, 'organization:manage');
  const baseOf = (request: Request) => (env.appBaseUrl ?? new URL(request.url).origin).replace(/\/+$/, '');
  return new Elysia({ prefix: '/api/orgs/:org/invitations' })
    .get('', route<Org>(async ({ params, caller }) => {
      await manage(caller, params.org);
      const [invitations, groups] = await Promise.all([listInvitations(deps, params.org), groupsOf(deps, params.org)]);
      const now = deps.clock.now();
      return json({ invitations: invitations.map((i) => invitationView(i, groups, now)) } satisfies InvitationListAnswer);
    }))
    .post('', route<Org>(async ({ request, params, caller }) => {
      await manage(caller, params.org);
      const body = await readJson(request, InviteBody);
      const invited = { orgId: params.org, email: body.email, groupIds: body.groups };
      const { invitation, token } = await createInvitation(deps, caller, invited);
      const answer: InvitationCreated = { invitation: invitationView(invitation, await groupsOf(deps, params.org), deps.clock.now()), link: `${baseOf(request)}/invite/${token}` };
      return json(answer, 201);
    }), noParse)
    .delete('/:id', route<Org & { id: string }>(async ({ params, caller }) => {
      await manage(caller, params.org);
      const invitation = await revokeInvitation(deps, params.org, params.id, caller);
      return json(invitationView(invitation, await groupsOf(deps, params.org), deps.clock.now()) satisfies InvitationView);
    }));
}

function domainView(record: DomainRecord, groups: GroupRecord[]): DomainView {
  return {
    domain: record.domain, status: record.verifiedAt ? 'verified' : 'pending', txtName: txtNameOf(record.domain), txtValue: record.txtValue,
    verifiedAt: record.verifiedAt ? record.verifiedAt.toISOString() : null,
    lastCheck: record.lastCheck ? { at: record.lastCheck.at.toISOString(), message: record.lastCheck.message } : null,
    autoOnboarding: record.autoOnboarding, defaultGroup: groupRefs([record.defaultGroupId], groups)[0]!,
    addedBy: personRef(record.addedBy), addedAt: record.addedAt.toISOString(),
  };
}

/** GET|POST /api/orgs/:org/domains, POST …/domains/:domain/verify, PUT|DELETE …/domains/:domain. */
function domainRoutes(env: InvitationRouteDeps) {
  const { deps } = env;
  const route = callerRoutes(env);
  const manage = (caller: OrgCaller, orgId: string) => requirePermission(deps, caller, orgId, 'organization:manage');
  const answer = async (record: DomainRecord, status = 200) => json(domainView(record, await groupsOf(deps, record.orgId)), status);
  type Domain = Org & { domain: string };
  return new Elysia({ prefix: '/api/orgs/:org/domains' })
    .get('', route<Org>(async ({ params, caller }) => {
      await manage(caller, params.org);
      const [domains, groups] = await Promise.all([listDomains(deps, params.org), groupsOf(deps, params.org)]);
      return json({ domains: domains.map((d) => domainView(d, groups)), dnsVerification: deps.dnsVerification } satisfies DomainListAnswer);
    }))
    .post('', route<Org>(async ({ request, params, caller }) => {
      await manage(caller, params.org);
      return answer(await addDomain(deps, params.org, caller, (await readJson(request, DomainBody)).domain), 201);
    }), noParse)
    .post('/:domain/verify', route<Domain>(async ({ params, caller }) => {
      await manage(caller, params.org);
      return answer(await verifyDomain(deps, params.org, params.domain));
    }), noParse)
    .put('/:domain', route<Domain>(async ({ request, params, caller }) => {
      const access = await manage(caller, params.org);
      return answer(await updateDomain(deps, access, params.domain, await readJson(request, DomainChange)));
    }), noParse)
    .delete('/:domain', route<Domain>(async ({ params, caller }) => {
      await manage(caller, params.org);
      await removeDomain(deps, params.org, params.domain);
      return json({ removed: params.domain.toLowerCase() });
    }));
}

/** What the consent screen shows of `invitation` to `caller`. */
async function offerView(deps: DomainDeps, invitation: InvitationRecord, caller: OrgCaller): Promise<InvitationOffer> {
  const org = await deps.docs.collection<OrganizationRecord>(orgCollections.organizations).findOne({ _id: invitation.orgId });
  const groups = await deps.docs.collection<GroupRecord>(orgCollections.groups).find({ orgId: invitation.orgId, _id: { $in: invitation.groupIds } });
  return {
    id: invitation._id, organization: { id: invitation.orgId, name: org?.name ?? '(deleted organization)' }, email: invitation.email,
    groups: groupRefs(invitation.groupIds, groups), status: invitationState(invitation, deps.clock.now()), source: invitation.source,
    invitedBy: personRef(invitation.invitedBy), expiresAt: invitation.expiresAt.toISOString(), signedInAs: caller.email,
    forYou: caller.email.toLowerCase() === invitation.email, alreadyMember: await isMember(deps, invitation.orgId, caller),
  };
}

function decision(result: InvitationDecisionResult, now: Date): InvitationDecision {
  return { status: invitationState(result.invitation, now), organization: { id: result.organization._id, name: result.organization.name }, memberId: result.member?._id ?? null };
}

/** GET /api/invitations, GET /api/invitations/link/:token, POST …/link/:token/join|dismiss, POST /api/invitations/:id/join|dismiss. */
function offerRoutes(env: InvitationRouteDeps) {
  const { deps } = env;
  const route = callerRoutes(env);
  const decide = (find: (caller: OrgCaller, key: string) => Promise<InvitationRecord>, how: typeof acceptInvitation) =>
    route<{ key: string }>(async ({ params, caller }) => json(decision(await how(deps, await find(caller, params.key), caller), deps.clock.now())));
  const byToken = (_caller: OrgCaller, token: string) => invitationByToken(deps, token);
  const byId = (caller: OrgCaller, id: string) => invitationForCaller(deps, caller, id);
  return new Elysia({ prefix: '/api/invitations' })
    .get('', route(async ({ caller }) => {
      const offers = await offersFor(deps, caller);
      return json({ invitations: await Promise.all(offers.map((o) => offerView(deps, o, caller))) } satisfies InvitationOfferList);
    }))
    .get('/link/:key', route<{ key: string }>(async ({ params, caller }) => json(await offerView(deps, await invitationByToken(deps, params.key), caller))))
    .post('/link/:key/join', decide(byToken, acceptInvitation), noParse)
    .post('/link/:key/dismiss', decide(byToken, dismissInvitation), noParse)
    .post('/:key/join', decide(byId, acceptInvitation), noParse)
    .post('/:key/dismiss', decide(byId, dismissInvitation), noParse);
}
