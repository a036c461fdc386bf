/**
 * Invitations, organization domains and auto-onboarding on the embedded SQLite store, with real SHA-256
 * digests and a real DNS server on loopback answering the TXT questions:
 * - an invitation is an offer to one address: only its holder joins or dismisses; signing in accepts
 *   nothing; a second invitation replaces a pending one; expiry, revocation and repeats;
 * - domains: TXT verification (absent, wrong value, right value, lookup failure), one organization per
 *   domain, PLATFORM_DNS_VERIFICATION off, auto-onboarding only by an Organization Owner;
 * - a first sign-in through an account the domain manages is offered membership and gets no personal
 *   organization unless they dismiss it.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.ts';
import { createTxtLookup } from '../../core/adapters/dns/txt-lookup.ts';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/index.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import {
  acceptInvitation, addDomain, addMember, builtinGroupId, createGroup, createInvitation, createOrganization, dismissInvitation, ensureOrgIndexes,
  invitationByToken, invitationState, listInvitations, listMembers, listOrganizations, offersFor, orgAccess, orgCollections, prepareSignedIn,
  revokeInvitation, updateDomain, verifyDomain, type DomainDeps, type InvitationRecord, type OrgCaller, type OrganizationRecord,
} from '../../core/org/index.ts';

const ada: OrgCaller = { subject: 'sub-ada', email: 'ada@example.com', name: 'Ada' };
const grace: OrgCaller = { subject: 'sub-grace', email: 'Grace@Example.com', name: 'Grace' };
const mallory: OrgCaller = { subject: 'sub-mallory', email: 'mallory@example.net' };

let dns: DnsServer;
let dir: string;
let docs: DocumentStore;
let now: Date;
let deps: DomainDeps;

beforeAll(async () => { dns = await startDnsServer(); });
afterAll(async () => { await dns.close(); });

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-invite-'));
  docs = await openSqliteDocumentStore({ path: join(dir, 'docdb.sqlite') });
  await ensureOrgIndexes(docs);
  now = new Date('2026-11-24T09:00:00Z');
  let n = 0;
  deps = {
    docs, clock: { now: () => now }, dnsVerification: true, txt: createTxtLookup({ servers: [dns.address], timeoutMs: 1000 }),
    ids: {
      newId: () => `id${(n += 1)}`,
      randomBytes: (k) => Uint8Array.from({ length: k }, (_, i) => (i * 7 + n) % 256),
      sha256Hex: async (data) => createHash('sha256').update(data).digest('hex'),
    },
  };
  dns.txt.clear();
  dns.failing.clear();
  return async () => { await docs.close(); rmSync(dir, { recursive: true, force: true }); };
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(() => 'no refusal', (error: { code?: string; status?: number }) => `${error.code} ${error.status}`);
}

async function acme(): Promise<OrganizationRecord> {
  return createOrganization(deps, ada, 'Acme');
}

describe('invitations', () => {
  it('stores only the digest of the link; only the verified holder of the address joins, into the chosen groups, and joining again changes nothing', async () => {
    const org = await acme();
    const analysts = await createGroup(deps, org._id, { name: 'Analysts', agentRoles: [{ agent: '*', role: 'user' }] });
    const invited = { orgId: org._id, email: ' Grace@Example.com ', groupIds: [analysts._id] };
    const { invitation, token } = await createInvitation(deps, ada, invited);
    expect(invitation).toMatchObject({ email: 'grace@example.com', status: 'pending', source: 'invitation', groupIds: [analysts._id] });
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await docs.collection<InvitationRecord>(orgCollections.invitations).findOne({ _id: invitation._id });
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(stored?.tokenDigest).toBe(createHash('sha256').update(token).digest('hex'));

    // Signing in (and reading the consent screen) accepts nothing.
    expect(await prepareSignedIn(deps, grace)).toBe('ready');
    const read = await invitationByToken(deps, token);
    expect(read._id).toBe(invitation._id);
    expect((await listMembers(deps, org._id)).map((m) => m.member.email)).toEqual(['ada@example.com']);

    expect(await codeOf(acceptInvitation(deps, read, mallory))).toBe('invitation_other_address 403');
    expect(await codeOf(dismissInvitation(deps, read, mallory))).toBe('invitation_other_address 403');
    const joined = await acceptInvitation(deps, read, grace);
    expect(joined.invitation.status).toBe('accepted');
    expect(joined.organization._id).toBe(org._id);
    const access = await orgAccess(deps, grace, org._id);
    expect(access.groups.map((g) => g.name)).toEqual(['Analysts']);
    expect(access.agentRole('any-agent')).toBe('user');

    const again = await acceptInvitation(deps, await invitationByToken(deps, token), grace);
    expect(again.member?._id).toBe(joined.member?._id);
    expect((await listMembers(deps, org._id)).length).toBe(2);
    expect(await codeOf(dismissInvitation(deps, again.invitation, grace))).toBe('invitation_closed 409');
  });

  it('a second invitation to the address replaces the pending one; dismissed, revoked and expired invitations cannot be joined', async () => {
    const org = await acme();
    const first = await createInvitation(deps, ada, { orgId: org._id, email: 'grace@example.com' });
    expect(first.invitation.groupIds).toEqual([builtinGroupId(org._id, 'user')]);
    const second = await createInvitation(deps, ada, { orgId: org._id, email: 'grace@example.com' });
    expect(await codeOf(acceptInvitation(deps, await invitationByToken(deps, first.token), grace))).toBe('invitation_closed 409');
    expect((await listInvitations(deps, org._id)).map((i) => `${i._id} ${i.status}`).sort()).toEqual([`${first.invitation._id} revoked`, `${second.invitation._id} pending`].sort());

    const dismissed = await dismissInvitation(deps, await invitationByToken(deps, second.token), grace);
    expect(dismissed.invitation.status).toBe('dismissed');
    expect((await dismissInvitation(deps, dismissed.invitation, grace)).invitation.status).toBe('dismissed');
    expect(await codeOf(acceptInvitation(deps, dismissed.invitation, grace))).toBe('invitation_closed 409');
    expect(await codeOf(orgAccess(deps, grace, org._id))).toBe('not_found 404');

    const third = await createInvitation(deps, ada, { orgId: org._id, email: 'grace@example.com' });
    const revoked = await revokeInvitation(deps, org._id, third.invitation._id, ada);
    expect(revoked.status).toBe('revoked');
    expect(await codeOf(acceptInvitation(deps, await invitationByToken(deps, third.token), grace))).toBe('invitation_closed 409');

    const fourth = await createInvitation(deps, ada, { orgId: org._id, email: 'grace@example.com' });
    now = new Date(now.getTime() + 14 * 24 * 3600 * 1000);
    expect(invitationState(fourth.invitation, now)).toBe('expired');
    expect(await offersFor(deps, grace)).toEqual([]);
    expect(await codeOf(acceptInvitation(deps, fourth.invitation, grace))).toBe('invitation_expired 410');
  });

  it('refuses an address that is a member, a malformed address, a group of another organization and an unknown link', async () => {
    const org = await acme();
    const other = await createOrganization(deps, mallory, 'Other');
    const invite = (email: string, groupIds?: string[]) =>
      createInvitation(deps, ada, { orgId: org._id, email, groupIds });
    expect(await codeOf(invite('ADA@example.com'))).toBe('already_member 409');
    expect(await codeOf(invite('not an address'))).toBe('invalid_argument 400');
    expect(await codeOf(invite('grace@example.com', [builtinGroupId(other._id, 'owner')]))).toBe('not_found 404');
    expect(await codeOf(invitationByToken(deps, 'A'.repeat(43)))).toBe('invitation_not_found 404');
    expect(await codeOf(invitationByToken(deps, '../../etc'))).toBe('invitation_not_found 404');
    expect(await listInvitations(deps, org._id)).toEqual([]);
  });
});

describe('domains', () => {
  it('verifies by the TXT record _cairn-verification.<domain>, says what DNS had otherwise, and keeps a domain to one organization', async () => {
    const org = await acme();
    const added = await addDomain(deps, org._id, ada, 'Example.COM.');
    expect(added).toMatchObject({ domain: 'example.com', autoOnboarding: false, defaultGroupId: builtinGroupId(org._id, 'user') });
    expect(added.verifiedAt).toBeUndefined();
    expect(added.txtValue).toMatch(/^cairn-verification=[0-9a-f]{32}$/);

    const absent = await verifyDomain(deps, org._id, 'example.com');
    expect(absent.verifiedAt).toBeUndefined();
    expect(absent.lastCheck?.message).toMatch(/^No TXT record _cairn-verification\.example\.com was found yet/);
    expect(dns.asked).toContain('TXT _cairn-verification.example.com');

    dns.txt.set('_cairn-verification.example.com', ['v=spf1 -all', 'cairn-verification=wrong']);
    expect((await verifyDomain(deps, org._id, 'example.com')).lastCheck?.message).toMatch(/has 2 TXT record\(s\), none with the value cairn-verification=/);

    dns.failing.add('_cairn-verification.example.com');
    expect(await codeOf(verifyDomain(deps, org._id, 'example.com'))).toBe('dns_failed 502');
    dns.failing.clear();

    dns.txt.set('_cairn-verification.example.com', ['v=spf1 -all', added.txtValue]);
    const verified = await verifyDomain(deps, org._id, 'example.com');
    expect(verified.verifiedAt).toEqual(now);

    const other = await createOrganization(deps, mallory, 'Other');
    const theirs = await addDomain(deps, other._id, mallory, 'example.com');
    dns.txt.set('_cairn-verification.example.com', [theirs.txtValue]);
    const refused = await verifyDomain(deps, other._id, 'example.com');
    expect(refused.verifiedAt).toBeUndefined();
    expect(refused.lastCheck?.message).toBe('example.com is already verified for another organization; it can be verified for one organization only.');

    expect(await codeOf(addDomain(deps, org._id, ada, 'example.com'))).toBe('conflict 409');
    for (const bad of ['localhost', 'exa mple.com', '-x.com', '10.0.0.1', 'a'.repeat(64) + '.com']) expect(await codeOf(addDomain(deps, org._id, ada, bad))).toBe('invalid_argument 400');
  });

  it('with PLATFORM_DNS_VERIFICATION off a domain is verified when added, without asking DNS', async () => {
    const org = await acme();
    const asked = dns.asked.length;
    const added = await addDomain({ ...deps, dnsVerification: false }, org._id, ada, 'example.org');
    expect(added.verifiedAt).toEqual(now);
    expect(added.lastCheck?.message).toBe('Verified when added (PLATFORM_DNS_VERIFICATION is off).');
    expect(dns.asked.length).toBe(asked);
  });

  it('auto-onboarding is off until an Organization Owner turns it on, on a verified domain only', async () => {
    const org = await acme();
    const managers = await createGroup(deps, org._id, { name: 'Managers', permissions: ['organization:manage'] });
    await addMember(deps, org._id, mallory, [managers._id]);
    await addDomain(deps, org._id, ada, 'example.com');
    const owner = await orgAccess(deps, ada, org._id);
    expect(await codeOf(updateDomain(deps, owner, 'example.com', { autoOnboarding: true }))).toBe('domain_unverified 409');
    const stored = await docs.collection<{ _id: string; txtValue: string }>(orgCollections.domains).findOne({ _id: `${org._id}:example.com` });
    dns.txt.set('_cairn-verification.example.com', [stored!.txtValue]);
    await verifyDomain(deps, org._id, 'example.com');
    const manager = await orgAccess(deps, mallory, org._id);
    expect(await codeOf(updateDomain(deps, manager, 'example.com', { autoOnboarding: true }))).toBe('owner_required 403');
    expect((await updateDomain(deps, owner, 'example.com', { autoOnboarding: true, defaultGroup: managers._id })).autoOnboarding).toBe(true);
    expect((await updateDomain(deps, manager, 'example.com', { autoOnboarding: false })).autoOnboarding).toBe(false);
  });
});

describe('auto-onboarding at a first sign-in', () => {
  async function onboardingOrg() {
    const org = await acme();
    const domain = await addDomain({ ...deps, dnsVerification: false }, org._id, ada, 'example.com');
    await updateDomain(deps, await orgAccess(deps, ada, org._id), domain.domain, { autoOnboarding: true });
    return org;
  }

  it('offers membership and no personal organization to an account the domain manages; Join makes them a member', async () => {
    const org = await onboardingOrg();
    const managed = { ...grace, managedDomain: 'example.com' };
    expect(await prepareSignedIn(deps, managed)).toBe('offered');
    expect(await prepareSignedIn(deps, managed)).toBe('offered');
    expect(await listOrganizations(deps, managed)).toEqual([]);
    const offers = await offersFor(deps, managed);
    expect(offers.map((o) => `${o.orgId} ${o.source} ${o.groupIds.join()}`)).toEqual([`${org._id} domain ${builtinGroupId(org._id, 'user')}`]);
    await acceptInvitation(deps, offers[0]!, managed);
    expect(await prepareSignedIn(deps, managed)).toBe('ready');
    expect((await listOrganizations(deps, managed)).map((o) => o.name)).toEqual(['Acme']);
  });

  it('gives a personal organization after Dismiss, and at once without the managed-domain claim, with another domain, or with auto-onboarding off', async () => {
    await onboardingOrg();
    const managed = { ...grace, managedDomain: 'example.com' };
    expect(await prepareSignedIn(deps, managed)).toBe('offered');
    await dismissInvitation(deps, (await offersFor(deps, managed))[0]!, managed);
    expect(await prepareSignedIn(deps, managed)).toBe('ready');
    expect((await listOrganizations(deps, managed)).map((o) => o.kind)).toEqual(['personal']);

    const unclaimed: OrgCaller = { subject: 'sub-hal', email: 'hal@example.com' };
    expect(await prepareSignedIn(deps, unclaimed)).toBe('ready');
    const elsewhere: OrgCaller = { subject: 'sub-ida', email: 'ida@example.com', managedDomain: 'example.org' };
    expect(await prepareSignedIn(deps, elsewhere)).toBe('ready');
    expect((await listOrganizations(deps, unclaimed)).map((o) => o.kind)).toEqual(['personal']);
    expect((await listOrganizations(deps, elsewhere)).map((o) => o.kind)).toEqual(['personal']);
    expect(await offersFor(deps, unclaimed)).toEqual([]);
  });
});
