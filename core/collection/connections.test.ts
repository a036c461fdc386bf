/**
 * Organizations' collection connections (./connections.ts, ./credentials.ts) on the in-memory document store, with
 * the SecretStore and OAuthClient ports answered in memory: who may list and change them (another organization 404
 * naming nothing), the callback taken once and only within its time, a stop between any two writes of storing a
 * token or of Disconnect (the next reader or the start's sweep moves it on), a refresh made once for concurrent
 * calls, and a refused refresh asking to reconnect.
 * Source: issue "Skill registries, and collections with per-organization credentials and OAuth apps" § Collections
 * per organization; docs/decisions.md D22 §§ 5–8.
 */
import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { addMember, createGroup, createOrganization, ensureOrgIndexes, type OrgCaller } from '../org/index.ts';
import type { OAuthClient, OAuthTokens } from '../ports/oauth-client.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { SecretStore } from '../ports/secret-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryLease } from '../testing/memory-lease.ts';
import {
  answerConnect,
  collectionCredentials,
  type CollectionDeps,
  collectionOffers,
  connectToken,
  disconnect,
  finishConnect,
  finishDisconnects,
  listCollections,
  startConnect,
} from './index.ts';
import { connectionsOf } from './records.ts';

const owner: OrgCaller = { subject: 'sub-owner', email: 'owner@example.com', name: 'Olive' };
const user: OrgCaller = { subject: 'sub-user', email: 'user@example.com' };
const outsider: OrgCaller = { subject: 'sub-out', email: 'out@example.com' };
const admin: OrgCaller = { subject: 'sub-admin', email: 'admin@example.com', name: 'Adam' };
const app = {
  appId: 'office',
  clientId: 'office-app',
  clientSecret: 's',
  collections: ['office'],
  issuer: 'https://id.example',
  scopes: ['api'],
  hasProvider: true,
};

describe('collection connections', () => {
  let nowMs: number;
  let deps: CollectionDeps;
  let orgId: string;
  let secrets: Map<string, Record<string, string>>;
  let failDelete: boolean;
  let refreshes: number;
  let refreshAnswer: () => Promise<OAuthTokens>;
  const lines: string[] = [];

  beforeEach(async () => {
    nowMs = Date.UTC(2026, 10, 27, 10);
    const docs = createMemoryDocumentStore();
    let n = 0;
    const clock = { now: () => new Date(nowMs) };
    const ids = {
      newId: () => `id${(n += 1)}`,
      randomBytes: (k: number) => crypto.getRandomValues(new Uint8Array(k)),
      sha256Hex: async (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex'),
    };
    secrets = new Map();
    failDelete = false;
    refreshes = 0;
    refreshAnswer = async () => ({ accessToken: `access-${refreshes}`, expiresAt: new Date(nowMs + 3_600_000) });
    const secretStore: SecretStore = {
      kind: 'db',
      put: async (id, fields) => {
        secrets.set(id, fields);
        return { version: 'v' };
      },
      get: async (id) => secrets.get(id) ?? null,
      delete: async (id) => {
        if (failDelete) throw new Error('the process stopped here');
        secrets.delete(id);
      },
    };
    const oauth: OAuthClient = {
      authorizationUrl: async (_app, request) => `https://id.example/auth?state=${request.state}`,
      exchangeCode: async (_app, answer) => {
        if (answer.query.code === 'bad') throw new PlatformError('oauth_grant_invalid', 'refused', { status: 400 });
        return { accessToken: 'access-0', refreshToken: 'refresh-0', expiresAt: new Date(nowMs + 30_000) };
      },
      refresh: async () => {
        refreshes += 1;
        return refreshAnswer();
      },
      revoke: async () => true,
      pkce: async () => ({ codeVerifier: 'verifier', codeChallenge: 'challenge', state: `state-${(n += 1)}` }),
    };
    lines.length = 0;
    deps = {
      docs,
      clock,
      ids,
      secrets: secretStore,
      oauth,
      redirectUrl: 'https://cairn.example/api/oauth2/callback',
      offers: collectionOffers(['crm', 'office'], [app]),
      log: (line) => lines.push(line),
      // Two organizations, and a service token that belongs to none: the deployment's token serves neither.
      deploymentOwner: async () => undefined,
      organizationCount: async () => 2,
    };
    await ensureOrgIndexes(docs);
    const org = { docs, clock, ids };
    orgId = (await createOrganization(org, owner, 'Acme'))._id;
    await createOrganization(org, outsider, 'Other');
    const users = await createGroup(org, orgId, { name: 'users', agentRoles: [] });
    await addMember(org, orgId, user, [users._id]);
    const managers = await createGroup(org, orgId, { name: 'managers', permissions: ['organization:manage'] });
    await addMember(org, orgId, admin, [managers._id]);
  });

  const credentials = () => collectionCredentials({ ...deps, lease: createMemoryLease(), owner: 'dispatcher@one' });

  it('any member lists; only organization:manage changes; another organization gets 404 naming nothing', async () => {
    const listed = await listCollections(deps, user, orgId);
    expect(listed.canManage).toBe(false);
    expect(listed.collections.map((c) => [c.id, c.kind, c.offered])).toEqual([['crm', 'token', false], [
      'office',
      'oauth',
      false,
    ]]);
    await expect(connectToken(deps, user, { orgId, collection: 'crm', token: 'a-token-of-sixteen+' })).rejects
      .toMatchObject({ code: 'permission_required', status: 403 });
    for (
      const attempt of [
        () => listCollections(deps, outsider, orgId),
        () => connectToken(deps, outsider, { orgId, collection: 'crm', token: 'a-token-of-sixteen+' }),
        () => startConnect(deps, outsider, { orgId, collection: 'office' }),
        () => disconnect(deps, outsider, { orgId, collection: 'crm' }),
      ]
    ) {
      const error = await attempt().then(() => undefined, (e: PlatformError) => e);
      expect(error).toMatchObject({ code: 'not_found', status: 404 });
      expect(error!.message).not.toContain(orgId);
    }
  });

  it('a stop between storing the secret and the record leaves nothing used; the next store completes it', async () => {
    // The document store stops answering connection writes: the process died after the secret was stored.
    const docs = deps.docs;
    const stopped = <T>(name: string) => {
      const real = docs.collection<T & { _id: string }>(name);
      if (name !== 'collection_connections') return real;
      return { ...real, updateOne: () => Promise.reject(new Error('the process stopped here')) };
    };
    const dying = { ...deps, docs: { ...docs, collection: stopped } as typeof docs };
    const target = { orgId, collection: 'crm', token: 'a-token-of-sixteen+' };
    await expect(connectToken(dying, owner, target)).rejects.toThrow('stopped here');
    expect(secrets.size).toBe(1);
    expect(await credentials().credentialFor(orgId, 'crm')).toEqual({ kind: 'none', reason: 'not_connected' });
    const view = await connectToken(deps, owner, { orgId, collection: 'crm', token: 'another-token-0123' });
    expect(view).toMatchObject({ offered: true, connection: { status: 'connected', connectedBy: 'Olive' } });
    expect(await credentials().credentialFor(orgId, 'crm')).toEqual({ kind: 'own', token: 'another-token-0123' });
    expect(await credentials().offered(orgId, ['crm', 'office'])).toEqual(new Set(['crm']));
    expect(lines).toEqual([`[credentials] connected collection crm for organization ${orgId} by Olive (token)`]);
  });

  it("a stop in the middle of Disconnect: no longer used at once, completed by the start's sweep", async () => {
    await connectToken(deps, owner, { orgId, collection: 'crm', token: 'a-token-of-sixteen+' });
    failDelete = true;
    await expect(disconnect(deps, owner, { orgId, collection: 'crm' })).rejects.toThrow('stopped here');
    expect(await credentials().credentialFor(orgId, 'crm')).toEqual({ kind: 'none', reason: 'not_connected' });
    expect((await listCollections(deps, owner, orgId)).collections[0]!.connection).toBeNull();
    failDelete = false;
    expect(await finishDisconnects(deps)).toBe(0); // not before a minute
    nowMs += 61_000;
    expect(await finishDisconnects(deps)).toBe(1);
    expect(secrets.size).toBe(0);
    expect(await connectionsOf(deps.docs).countDocuments({})).toBe(0);
    expect(lines.at(-1)).toBe(
      `[credentials] disconnected collection crm for organization ${orgId} by the platform (token removed)`,
    );
  });

  /** A Connect started by `who` in Acme and answered by the provider: its state and the key its callback handed out. */
  const answered = async (who: OrgCaller, query: Record<string, string> = { code: 'c' }) => {
    const begun = await startConnect(deps, who, { orgId, collection: 'office' });
    const state = new URL(begun.authorizeUrl).searchParams.get('state')!;
    return { state, answer: await answerConnect(deps, { ...query, state }) };
  };
  const finish = (who: OrgCaller, state: string, key: string) =>
    finishConnect(deps, who, { orgId, collection: 'office', state, key });

  it('takes a callback once and within ten minutes, and its finish once; a refusal stores nothing', async () => {
    const { state, answer } = await answered(owner);
    expect(answer).toEqual({
      orgId,
      collection: 'office',
      finish: { state, key: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    expect(await answerConnect(deps, { state, code: 'c' })).toEqual({ error: 'oauth_connect_unknown' });
    await expect(finish(owner, state, 'not-the-key')).rejects.toMatchObject({
      code: 'oauth_connect_unknown',
      status: 404,
    });
    expect(await finish(owner, state, answer.finish!.key)).toMatchObject({
      offered: true,
      connection: { status: 'connected' },
    });
    await expect(finish(owner, state, answer.finish!.key)).rejects.toMatchObject({ code: 'oauth_connect_unknown' });
    const late = await startConnect(deps, owner, { orgId, collection: 'office' });
    nowMs += 10 * 60_000 + 1;
    const lateState = new URL(late.authorizeUrl).searchParams.get('state')!;
    expect(await answerConnect(deps, { state: lateState, code: 'c' })).toMatchObject({
      error: 'oauth_connect_unknown',
    });
    expect((await answered(owner, { error: 'access_denied' })).answer).toMatchObject({ error: 'oauth_denied' });
    const bad = await answered(owner, { code: 'bad' });
    await expect(finish(owner, bad.state, bad.answer.finish!.key)).rejects.toMatchObject({
      code: 'oauth_grant_invalid',
    });
    expect(lines.filter((l) => l.includes('connected collection office'))).toHaveLength(1);
  });

  it("a sign-in someone else started lands nowhere: the lured member's finish discards it", async () => {
    // Adam starts a Connect and lures Olive to the authorization URL: the provider answers to Olive's browser.
    const lured = await answered(admin);
    await expect(finish(owner, lured.state, lured.answer.finish!.key)).rejects.toMatchObject({
      code: 'oauth_connect_unknown',
      status: 404,
    });
    // Discarded: even with the key (which only Olive's browser saw) Adam cannot finish it.
    await expect(finish(admin, lured.state, lured.answer.finish!.key)).rejects.toMatchObject({
      code: 'oauth_connect_unknown',
    });
    expect(secrets.size).toBe(0);
    expect((await listCollections(deps, owner, orgId)).collections[1]!.connection).toBeNull();
    // A member of another organization gets 404 naming nothing.
    const mine = await answered(owner);
    const error = await finish(outsider, mine.state, mine.answer.finish!.key).catch((e: PlatformError) => e);
    expect(error).toMatchObject({ code: 'not_found', status: 404 });
    expect((error as PlatformError).message).not.toContain(orgId);
  });

  it('refreshes once for concurrent calls, and asks to reconnect when the provider refuses', async () => {
    const { state, answer } = await answered(owner);
    await finish(owner, state, answer.finish!.key);
    const resolver = credentials();
    const both = await Promise.all([resolver.credentialFor(orgId, 'office'), resolver.credentialFor(orgId, 'office')]);
    expect(both).toEqual([{ kind: 'own', token: 'access-1' }, { kind: 'own', token: 'access-1' }]);
    expect(refreshes).toBe(1);
    nowMs += 3_600_000;
    refreshAnswer = () => Promise.reject(new PlatformError('oauth_grant_invalid', 'revoked', { status: 400 }));
    expect(await resolver.credentialFor(orgId, 'office')).toEqual({ kind: 'none', reason: 'reconnect' });
    expect(await resolver.offered(orgId, ['crm', 'office'])).toEqual(new Set());
    const view = (await listCollections(deps, owner, orgId)).collections[1]!;
    expect(view.connection).toMatchObject({ status: 'reconnect', reconnectReason: expect.stringContaining('refused') });
    expect(lines.at(-1)).toMatch(
      /^\[credentials\] reconnect asked collection office for organization \S+ by the platform/,
    );
  });
});
