/**
 * Caller admission of incoming connections against a REAL local OpenID provider (oidc-provider on loopback,
 * test/helpers/oidc-provider.ts) and real organization records: a JWT of the declared issuer and audience is
 * admitted (its subject named, no platform user created); another audience, another issuer, an expired
 * token, an algorithm the connection does not accept and a missing token are refused 401; the JWKS URL may be
 * given instead of discovery; without PLATFORM_ALLOW_PRIVATE_URLS the loopback provider (and a name resolving to
 * loopback) is refused with 503 naming the variable. Origins are checked before anything (403); a member's own
 * sign-in admits them
 * on AG-UI and MCP with the User role, never on a webhook, never when it is not their own doing.
 * Source: spec/platform-service.md § Incoming connection authentication (rules 1–5); docs/decisions.md D8 §
 * Connections.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionDeps, connectionDeps } from '../../core/boot/connection-wiring.ts';
import { createGuardedFetch } from '../../core/adapters/outbound/guarded-fetch.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { admitCaller, createConnection, ensureConnectionIndexes, listConnections, type AdmissionDeps, type ConnectionRecord } from '../../core/connection/index.ts';
import { addMember, createGroup, createOrganization, ensureOrgIndexes, orgCollections } from '../../core/org/index.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { startOidcProvider, type RunningOidcProvider } from '../helpers/oidc-provider.ts';

const audience = 'https://agents.example.com/support';
const people = [{ clientId: 'crm', secret: 'crm-secret-value-1' }, { clientId: 'other-app', secret: 'other-secret-value-1' }];
let op: RunningOidcProvider;
let otherOp: RunningOidcProvider;
let docs: DocumentStore;
let admission: AdmissionDeps;
let orgId: string;
const agentId = 'agent-1';
const owner = { subject: 'owner-1', email: 'owner@example.com' };

function connection(fields: Partial<ConnectionRecord>): ConnectionRecord {
  return {
    _id: 'x', schemaVersion: 1, orgId, agentId, environment: 'main', identifier: 'x', protocol: 'mcp', auth: 'oidc',
    oidc: { issuer: op.issuer, audience, algorithms: ['RS256'] }, origins: [], rate: { perCaller: 30, perEndpoint: 300 },
    address: 'addr', createdAt: new Date(0), createdBy: 'owner-1', updatedAt: new Date(0), ...fields,
  };
}

beforeAll(async () => {
  op = await startOidcProvider(people, audience);
  otherOp = await startOidcProvider(people, audience);
  docs = createMemoryDocumentStore();
  await ensureOrgIndexes(docs);
  const orgDeps = { docs, clock: systemClock, ids: cryptoIds };
  orgId = (await createOrganization(orgDeps, owner, 'Acme'))._id;
  const readers = await createGroup(orgDeps, orgId, { name: 'Readers', agentRoles: [{ agent: agentId, role: 'reader' }] });
  await addMember(orgDeps, orgId, { subject: 'reader-1', email: 'r@example.com' }, [readers._id]);
  await addMember(orgDeps, orgId, { subject: 'user-1', email: 'u@example.com' }, [`${orgId}.user`]);
  // The local provider is on loopback over http: PLATFORM_ALLOW_PRIVATE_URLS=true, as a test deployment sets it.
  admission = admissionDeps({ docs, ids: cryptoIds, allowPrivateUrls: true });
});
afterAll(async () => {
  await op?.stop();
  await otherOp?.stop();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('oidc mode against the real provider', () => {
  it('admits a token of the declared issuer and audience, naming its subject and creating no platform user', async () => {
    const membersBefore = await docs.collection(orgCollections.members).countDocuments({});
    const result = await admitCaller(admission, connection({}), bearer(await op.clientCredentialsToken('crm')));
    expect(result).toEqual({ admitted: true, caller: { kind: 'oidc', subject: 'crm', rateKey: 'oidc:crm' } });
    expect(await docs.collection(orgCollections.members).countDocuments({})).toBe(membersBefore);
  });

  it('admits through a declared JWKS URL as well', async () => {
    const jwksUrl = (await (await fetch(`${op.issuer}/.well-known/openid-configuration`)).json() as { jwks_uri: string }).jwks_uri;
    const result = await admitCaller(admission, connection({ oidc: { issuer: op.issuer, audience, jwksUrl, algorithms: ['RS256'] } }), bearer(await op.clientCredentialsToken('crm')));
    expect(result.admitted).toBe(true);
  });

  it('without PLATFORM_ALLOW_PRIVATE_URLS refuses the loopback issuer, a private JWKS URL '
    + 'and a name resolving to loopback (503 naming the variable)', async () => {
    const token = bearer(await op.clientCredentialsToken('crm'));
    const guarded = admissionDeps({ docs, ids: cryptoIds });
    const refusals = [
      await admitCaller(guarded, connection({}), token),
      await admitCaller(guarded, connection({
        oidc: {
          issuer: 'https://id.example.com', audience, jwksUrl: `https://127.0.0.2:${new URL(op.issuer).port}/jwks`,
          algorithms: ['RS256'],
        },
      }), token),
    ];
    // DNS rebinding: a public-looking name that resolves to this machine when the keys are fetched.
    const rebinding = admissionDeps({
      docs, ids: cryptoIds, fetch: createGuardedFetch({ lookup: async () => [{ address: '127.0.0.1', family: 4 }] }),
    });
    refusals.push(await admitCaller(rebinding, connection({
      oidc: { issuer: 'https://id.rebind.example', audience, algorithms: ['RS256'] },
    }), token));
    for (const refusal of refusals) {
      expect(refusal).toMatchObject({ admitted: false, status: 503 });
      expect(JSON.stringify(refusal)).toContain('PLATFORM_ALLOW_PRIVATE_URLS=true');
    }
  });

  it('refuses another audience, another issuer, an expired token, an algorithm not declared, and no token', async () => {
    const refusedWith = async (conn: ConnectionRecord, facts: { authorization?: string }) => {
      const result = await admitCaller(admission, conn, facts);
      return result.admitted ? 'admitted' : `${result.status} ${result.code}: ${result.message}`;
    };
    expect(await refusedWith(connection({}), bearer(await op.clientCredentialsToken('crm', { resource: 'https://elsewhere.example.com' })))).toMatch(/^401 connection_unauthorized: .*aud claim/);
    expect(await refusedWith(connection({}), bearer(await otherOp.clientCredentialsToken('crm')))).toMatch(/^401 connection_unauthorized: .*(iss claim|not signed by)/);
    const now = Math.floor(Date.now() / 1000);
    const expired = await op.signWithProviderKey({ iss: op.issuer, aud: audience, sub: 'crm', iat: now - 7200, exp: now - 3600 });
    expect(await refusedWith(connection({}), bearer(expired))).toMatch(/^401 connection_unauthorized: .*has expired/);
    const es256Only = connection({ oidc: { issuer: op.issuer, audience, algorithms: ['ES256'] } });
    expect(await refusedWith(es256Only, bearer(await op.clientCredentialsToken('crm')))).toMatch(/^401 connection_unauthorized: .*algorithm/);
    expect(await refusedWith(connection({}), {})).toMatch(/^401 connection_unauthorized/);
    expect(await refusedWith(connection({}), { authorization: 'Basic abc' })).toMatch(/^401 connection_unauthorized/);
  });
});

describe('origins and the member rule', () => {
  it('refuses a page of a site not listed before anything (403); no Origin is server-to-server', async () => {
    const listed = connection({ protocol: 'agui', auth: 'public', origins: ['https://shop.example.com'] });
    expect(await admitCaller(admission, listed, { origin: 'https://evil.example.com', member: { subject: 'user-1', viaOwnDoing: true } })).toMatchObject({ admitted: false, status: 403, code: 'origin_refused' });
    expect((await admitCaller(admission, listed, { origin: 'https://shop.example.com' })).admitted).toBe(true);
    expect((await admitCaller(admission, listed, {})).admitted).toBe(true);
    expect(await admitCaller(admission, connection({ protocol: 'agui', auth: 'public' }), { origin: 'https://shop.example.com' })).toMatchObject({ status: 403 });
    expect((await admitCaller(admission, connection({ protocol: 'agui', auth: 'public', origins: ['*'] }), { origin: 'https://any.example.org' })).admitted).toBe(true);
  });

  it('admits a member with the User role by their own sign-in on MCP and AG-UI, in any mode', async () => {
    const own = { member: { subject: 'user-1', viaOwnDoing: true } };
    expect(await admitCaller(admission, connection({}), own)).toEqual({ admitted: true, caller: { kind: 'member', subject: 'user-1', rateKey: 'member:user-1' } });
    expect((await admitCaller(admission, connection({ protocol: 'agui', auth: 'bearer', tokenDigest: 'f'.repeat(64) }), own)).admitted).toBe(true);
  });

  it('treats a Reader, a sign-in not of their own doing, and any sign-in on a webhook as other callers', async () => {
    expect(await admitCaller(admission, connection({}), { member: { subject: 'reader-1', viaOwnDoing: true } })).toMatchObject({ admitted: false, status: 401 });
    expect(await admitCaller(admission, connection({}), { member: { subject: 'user-1', viaOwnDoing: false } })).toMatchObject({ admitted: false, status: 401 });
    expect(await admitCaller(admission, connection({}), { member: { subject: 'stranger', viaOwnDoing: true } })).toMatchObject({ admitted: false, status: 401 });
    expect(await admitCaller(admission, connection({ protocol: 'webhook', auth: 'bearer', tokenDigest: 'f'.repeat(64) }), { member: { subject: 'user-1', viaOwnDoing: true } })).toMatchObject({ admitted: false, status: 401 });
  });

  it('the wiring checks roles on the agent found by slug: a Reader lists but cannot register (403)', async () => {
    const now = new Date();
    await docs.collection<Record<string, unknown> & { _id: string }>('agent_agents').insertOne({ _id: agentId, schemaVersion: 1, orgId, slug: 'support', name: 'Support', description: '', createdAt: now });
    await docs.collection<Record<string, unknown> & { _id: string }>('agent_environments').insertOne({ _id: 'env-1', schemaVersion: 1, agentId, orgId, name: 'main', draftCommit: 'c', draftSavedAt: now, published: null, createdAt: now });
    const deps = connectionDeps({ docs, clock: systemClock, ids: cryptoIds, production: false });
    const reader = { subject: 'reader-1' };
    expect(await listConnections(deps, reader, 'support', 'main')).toEqual([]);
    const input = { identifier: 'chat', protocol: 'agui', auth: 'public' } as const;
    const chat = { agent: 'support', environment: 'main', input };
    const refusal = await createConnection(deps, reader, chat)
      .then(() => 'created', (e: { status: number; code: string }) => `${e.status} ${e.code}`);
    expect(refusal).toBe('403 agent_role_required');
    const created = await createConnection(deps, owner, chat);
    expect(created).toMatchObject({ connection: { agentId, orgId, environment: 'main' } });
    const stranger = await listConnections(deps, { subject: 'stranger' }, 'support', 'main').then(() => 'listed', (e: { status: number; code: string }) => `${e.status} ${e.code}`);
    expect(stranger).toBe('404 agent_not_found');
  });

  it('a connection created through the use cases admits its own token (wiring end to end)', async () => {
    await ensureConnectionIndexes({ docs });
    const deps = { ...connectionDeps({ docs, clock: systemClock, ids: cryptoIds, production: false }), scope: async () => ({ orgId, agentId, environment: 'main' }) };
    const hook = { identifier: 'hook', protocol: 'webhook', auth: 'bearer' } as const;
    const created = await createConnection(deps, owner, { agent: agentId, environment: 'main', input: hook });
    expect(await admitCaller(admission, created.connection, { ...bearer(created.token!), clientAddress: '10.0.0.9' })).toEqual({ admitted: true, caller: { kind: 'token', rateKey: 'token:10.0.0.9' } });
  });
});
