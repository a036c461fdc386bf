/**
 * The invitation and domain routes over a memory store, real organizations (core/org), real SHA-256 and a
 * DNS server on loopback: the shown-once link under APP_BASE_URL, the consent read that accepts nothing,
 * Join and Dismiss by the holder only (by link and from the offers list), the managers' list and revoke,
 * 403 for members without organization:manage, and domains with TXT verification and the owner-only switch.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTxtLookup } from '../../core/adapters/dns/txt-lookup.ts';
import type { DomainListAnswer, DomainView, InvitationCreated, InvitationDecision, InvitationListAnswer, InvitationOffer, InvitationOfferList, MemberListAnswer, OrganizationDetail } from '../../core/org/api-views.ts';
import { createGroup, createOrganization, type OrgCaller } from '../../core/org/index.ts';
import type { Logger } from '../../core/ports/logger.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { startDnsServer, type DnsServer } from '../../test/helpers/dns-server.ts';
import { invitationRoutes } from './invitation-routes.ts';
import { orgRoutes } from './org-routes.ts';

const logger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => logger };
const people: Record<string, OrgCaller> = {
  ada: { subject: 'sub-ada', email: 'ada@example.com', name: 'Ada' },
  grace: { subject: 'sub-grace', email: 'grace@example.com', name: 'Grace' },
  mallory: { subject: 'sub-mallory', email: 'mallory@example.net' },
};

let dns: DnsServer;
beforeAll(async () => { dns = await startDnsServer(); });
afterAll(async () => { await dns.close(); });

async function world() {
  let n = 0;
  const docs = createMemoryDocumentStore();
  const deps = {
    docs, clock: { now: () => new Date('2026-11-24T09:00:00Z') }, dnsVerification: true, txt: createTxtLookup({ servers: [dns.address], timeoutMs: 1000 }),
    ids: { newId: () => `id${(n += 1)}`, randomBytes: (k: number) => Uint8Array.from({ length: k }, (_, i) => (i + n * 13) % 256), sha256Hex: async (d: string | Uint8Array) => createHash('sha256').update(d).digest('hex') },
  };
  const org = await createOrganization(deps, people.ada!, 'Acme');
  const callerOf = (request: Request) => {
    const who = people[request.headers.get('x-test-member') ?? ''];
    if (!who) throw new PlatformError('unauthorized', 'Sign in first.', { status: 401 });
    return who;
  };
  const env = { deps, logger, callerOf, prepare: async () => undefined };
  const app = orgRoutes(env).use(invitationRoutes({ ...env, appBaseUrl: 'https://cairn.example.com/' }));
  const call = async <T>(who: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const headers: Record<string, string> = { 'x-test-member': who };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await app.handle(new Request(`http://api.local${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
    return { status: response.status, body: await response.json() as T };
  };
  return { org, deps, call };
}

describe('invitation routes', () => {
  it('invite → shown-once link → consent read (accepts nothing) → Join by the holder only', async () => {
    const { org, call } = await world();
    const created = await call<InvitationCreated>('ada', 'POST', `/api/orgs/${org._id}/invitations`, { email: 'grace@example.com' });
    expect(created.status).toBe(201);
    expect(created.body.invitation).toMatchObject({ email: 'grace@example.com', status: 'pending', source: 'invitation', groups: [{ name: 'User' }], invitedBy: { email: 'ada@example.com', name: 'Ada' } });
    const token = created.body.link.replace('https://cairn.example.com/invite/', '');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const read = await call<InvitationOffer>('grace', 'GET', `/api/invitations/link/${token}`);
    expect(read.body).toMatchObject({ organization: { id: org._id, name: 'Acme' }, email: 'grace@example.com', forYou: true, alreadyMember: false, status: 'pending', signedInAs: 'grace@example.com' });
    expect((await call<MemberListAnswer>('ada', 'GET', `/api/orgs/${org._id}/members`)).body.members.map((m) => m.email)).toEqual(['ada@example.com']);
    expect((await call<InvitationOffer>('mallory', 'GET', `/api/invitations/link/${token}`)).body.forYou).toBe(false);

    const stolen = await call<{ error: { code: string; message: string } }>('mallory', 'POST', `/api/invitations/link/${token}/join`);
    expect(stolen.status).toBe(403);
    expect(stolen.body.error.code).toBe('invitation_other_address');
    expect(stolen.body.error.message).toContain('sign in as grace@example.com');

    const joined = await call<InvitationDecision>('grace', 'POST', `/api/invitations/link/${token}/join`);
    expect(joined.status).toBe(200);
    expect(joined.body).toMatchObject({ status: 'accepted', organization: { id: org._id, name: 'Acme' } });
    const members = (await call<MemberListAnswer>('grace', 'GET', `/api/orgs/${org._id}/members`)).body.members;
    expect(members.map((m) => m.email)).toEqual(['ada@example.com', 'grace@example.com']);
    expect(members.find((m) => m.email === 'grace@example.com')?.id).toBe(joined.body.memberId);
    const detail = await call<OrganizationDetail>('grace', 'GET', `/api/orgs/${org._id}`);
    expect(detail.body.you).toMatchObject({ owner: false, groups: [{ name: 'User' }] });
    expect((await call<OrganizationDetail>('ada', 'GET', `/api/orgs/${org._id}`)).body.you.owner).toBe(true);

    expect((await call<{ error: { code: string } }>('grace', 'GET', `/api/orgs/${org._id}/invitations`)).body.error.code).toBe('permission_required');
    expect((await call<{ error: { code: string } }>('grace', 'GET', `/api/invitations/link/${'x'.repeat(43)}`)).status).toBe(404);
  });

  it('lists offers to the signed-in address; Dismiss from the list; managers list and revoke', async () => {
    const { org, call } = await world();
    const first = await call<InvitationCreated>('ada', 'POST', `/api/orgs/${org._id}/invitations`, { email: 'GRACE@example.com' });
    const offers = await call<InvitationOfferList>('grace', 'GET', '/api/invitations');
    expect(offers.body.invitations.map((o) => o.id)).toEqual([first.body.invitation.id]);
    expect((await call<InvitationOfferList>('mallory', 'GET', '/api/invitations')).body.invitations).toEqual([]);
    expect((await call<{ error: { code: string } }>('mallory', 'POST', `/api/invitations/${first.body.invitation.id}/dismiss`)).status).toBe(404);
    const dismissed = await call<InvitationDecision>('grace', 'POST', `/api/invitations/${first.body.invitation.id}/dismiss`);
    expect(dismissed.body).toMatchObject({ status: 'dismissed', memberId: null });
    expect((await call<InvitationOfferList>('grace', 'GET', '/api/invitations')).body.invitations).toEqual([]);

    const second = await call<InvitationCreated>('ada', 'POST', `/api/orgs/${org._id}/invitations`, { email: 'grace@example.com' });
    const revoked = await call<{ status: string }>('ada', 'DELETE', `/api/orgs/${org._id}/invitations/${second.body.invitation.id}`);
    expect(revoked.body.status).toBe('revoked');
    const closed = await call<{ error: { code: string } }>('grace', 'POST', `${new URL(second.body.link).pathname.replace('/invite/', '/api/invitations/link/')}/join`);
    expect(closed.status).toBe(409);
    expect(closed.body.error.code).toBe('invitation_closed');
    const list = await call<InvitationListAnswer>('ada', 'GET', `/api/orgs/${org._id}/invitations`);
    expect(list.body.invitations.map((i) => i.status).sort()).toEqual(['dismissed', 'revoked']);
    expect((await call<{ error: { code: string } }>('ada', 'POST', `/api/orgs/${org._id}/invitations`, { email: 'ada@example.com' })).body.error.code).toBe('already_member');
    expect((await call<{ error: { code: string } }>('ada', 'POST', `/api/orgs/${org._id}/invitations`, { email: 'x@y.z', extra: 1 })).status).toBe(400);
  });
});

describe('domain routes', () => {
  it('add → TXT record shown → verify (not yet, then found) → auto-onboarding only by an owner', async () => {
    const { org, deps, call } = await world();
    const managers = await createGroup(deps, org._id, { name: 'Managers', permissions: ['organization:manage'] });
    const invited = await call<InvitationCreated>('ada', 'POST', `/api/orgs/${org._id}/invitations`, { email: 'mallory@example.net', groups: [managers._id] });
    expect((await call<InvitationDecision>('mallory', 'POST', `/api/invitations/link/${invited.body.link.split('/invite/')[1]}/join`)).body.status).toBe('accepted');
    const added = await call<DomainView>('ada', 'POST', `/api/orgs/${org._id}/domains`, { domain: 'Acme.example' });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ domain: 'acme.example', status: 'pending', txtName: '_cairn-verification.acme.example', autoOnboarding: false, defaultGroup: { name: 'User' }, lastCheck: null });

    const early = await call<DomainView>('ada', 'POST', `/api/orgs/${org._id}/domains/acme.example/verify`);
    expect(early.body.status).toBe('pending');
    expect(early.body.lastCheck?.message).toContain('No TXT record _cairn-verification.acme.example was found yet');
    expect((await call<{ error: { code: string } }>('ada', 'PUT', `/api/orgs/${org._id}/domains/acme.example`, { autoOnboarding: true })).body.error.code).toBe('domain_unverified');

    dns.txt.set('_cairn-verification.acme.example', [added.body.txtValue]);
    const verified = await call<DomainView>('ada', 'POST', `/api/orgs/${org._id}/domains/acme.example/verify`);
    expect(verified.body.status).toBe('verified');
    const listed = await call<DomainListAnswer>('ada', 'GET', `/api/orgs/${org._id}/domains`);
    expect(listed.body.dnsVerification).toBe(true);
    expect(listed.body.domains.map((d) => `${d.domain} ${d.status}`)).toEqual(['acme.example verified']);

    const notOwner = await call<{ error: { code: string; message: string } }>('mallory', 'PUT', `/api/orgs/${org._id}/domains/acme.example`, { autoOnboarding: true });
    expect(notOwner.status).toBe(403);
    expect(notOwner.body.error.code).toBe('owner_required');
    const on = await call<DomainView>('ada', 'PUT', `/api/orgs/${org._id}/domains/acme.example`, { autoOnboarding: true, defaultGroup: managers._id });
    expect(on.body).toMatchObject({ autoOnboarding: true, defaultGroup: { id: managers._id, name: 'Managers' } });
    const removed = await call<{ removed: string }>('ada', 'DELETE', `/api/orgs/${org._id}/domains/acme.example`);
    expect(removed.body.removed).toBe('acme.example');
    expect((await call<DomainListAnswer>('ada', 'GET', `/api/orgs/${org._id}/domains`)).body.domains).toEqual([]);
    expect((await call<{ error: { code: string } }>('grace', 'GET', `/api/orgs/${org._id}/domains`)).status).toBe(404);
  });
});
