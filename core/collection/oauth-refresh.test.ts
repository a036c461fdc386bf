/**
 * A connection's OAuth refresh across processes (./oauth-refresh.ts): two credential resolvers with their own lease
 * owners over one in-memory document store, secret store and lease, on a clock the test moves. A process that died
 * holding the refresh lease delays the others (a bounded wait, then a clear failure) until the lease lapses, then
 * the next call refreshes; a refresh refused because another process rotated the refresh token meanwhile uses that
 * process's tokens and leaves the connection connected.
 * Source: docs/decisions.md D22 §§ 8, 10.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { OAuthClient, OAuthTokens } from '../ports/oauth-client.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { SecretStore } from '../ports/secret-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryLease, createMemoryLeaseData, type MemoryLeaseData } from '../testing/memory-lease.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { saveConnection } from './connections.ts';
import { collectionCredentials, type CredentialDeps } from './credentials.ts';
import { collectionOffers } from './offers.ts';
import { REFRESH_LEASE_MS, REFRESH_WAIT_MS, refreshLeaseName } from './oauth-refresh.ts';
import { connectionId, connectionsOf, credentialIdOf } from './records.ts';

const app = {
  appId: 'office',
  clientId: 'office-app',
  clientSecret: 's',
  collections: ['office'],
  issuer: 'https://id.example',
  scopes: ['api'],
  hasProvider: true,
};
const orgId = 'org-a';

describe('an OAuth refresh across processes', () => {
  let nowMs: number;
  let docs: DocumentStore;
  let secrets: Map<string, Record<string, string>>;
  let leases: MemoryLeaseData;
  let refresh: (token: string) => Promise<OAuthTokens>;
  const lines: string[] = [];
  const clock = { now: () => new Date(nowMs) };

  /** A resolver as one dispatcher has it: its own lease owner, the shared stores; its waits move the clock. */
  const dispatcher = (owner: string) => {
    const secretStore: SecretStore = {
      kind: 'db',
      put: async (id, fields) => (secrets.set(id, fields), { version: 'v' }),
      get: async (id) => secrets.get(id) ?? null,
      delete: async (id) => void secrets.delete(id),
    };
    const oauth = { refresh: (_app: unknown, token: string) => refresh(token) } as unknown as OAuthClient;
    const deps: CredentialDeps = {
      docs,
      clock,
      secrets: secretStore,
      offers: collectionOffers(['office'], [app]),
      oauth,
      lease: createMemoryLease({ now: () => nowMs, data: leases }),
      owner,
      sleep: async (ms) => void (nowMs += ms),
      log: (line) => lines.push(line),
      deploymentOwner: async () => undefined,
      organizationCount: async () => 2,
    };
    return collectionCredentials(deps);
  };

  beforeEach(async () => {
    nowMs = Date.UTC(2026, 10, 27, 10);
    docs = createMemoryDocumentStore({ now: clock.now });
    secrets = new Map([[credentialIdOf(orgId, 'office'), { accessToken: 'access-0', refreshToken: 'refresh-0' }]]);
    leases = createMemoryLeaseData();
    lines.length = 0;
    const deps = { docs, clock } as Parameters<typeof saveConnection>[0];
    // Connected; its access token expired.
    await saveConnection(deps, { orgId, collection: 'office', connectedBy: { memberId: 'm1', name: 'Olive' } }, {
      kind: 'oauth',
      appId: 'office',
      clientId: 'office-app',
      expiresAt: new Date(nowMs - 1_000),
    });
  });

  const status = async () => (await connectionsOf(docs).findOne({ _id: connectionId(orgId, 'office') }))!.status;

  it('waits for a dead holder at most REFRESH_WAIT_MS; once its lease lapses, the next call refreshes', async () => {
    const refreshed: string[] = [];
    refresh = async (token) => {
      refreshed.push(token);
      return { accessToken: 'access-1', refreshToken: 'refresh-1', expiresAt: new Date(nowMs + 3_600_000) };
    };
    const name = refreshLeaseName(connectionId(orgId, 'office'));
    expect(await createMemoryLease({ now: () => nowMs, data: leases }).acquire(name, 'dead', REFRESH_LEASE_MS)).toBe(
      true,
    );
    const started = nowMs;
    expect(await dispatcher('dispatcher@two').credentialFor(orgId, 'office')).toEqual({
      kind: 'failed',
      message: 'The office sign-in is being refreshed by another dispatcher; try again in a minute.',
    });
    expect(nowMs - started).toBeGreaterThanOrEqual(REFRESH_WAIT_MS);
    expect(refreshed).toEqual([]);
    nowMs = started + REFRESH_LEASE_MS;
    expect(await dispatcher('dispatcher@two').credentialFor(orgId, 'office')).toEqual({
      kind: 'own',
      token: 'access-1',
    });
    expect(refreshed).toEqual(['refresh-0']);
    expect(await status()).toBe('connected');
  });

  it('uses the tokens another process stored when the provider refuses a token that one rotated', async () => {
    let refuse!: () => void;
    const sent: string[] = [];
    refresh = (token) => {
      sent.push(token);
      if (sent.length === 1) {
        // The first dispatcher's refresh outlives its lease; the provider then refuses the token the second rotated.
        return new Promise((_resolve, reject) => {
          refuse = () =>
            reject(new PlatformError('oauth_grant_invalid', 'refresh token already used', { status: 400 }));
        });
      }
      return Promise.resolve({
        accessToken: 'access-2',
        refreshToken: 'refresh-2',
        expiresAt: new Date(nowMs + 3_600_000),
      });
    };
    const slow = dispatcher('dispatcher@one').credentialFor(orgId, 'office');
    while (sent.length === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    nowMs += REFRESH_LEASE_MS;
    expect(await dispatcher('dispatcher@two').credentialFor(orgId, 'office')).toEqual({
      kind: 'own',
      token: 'access-2',
    });
    refuse();
    expect(await slow).toEqual({ kind: 'own', token: 'access-2' });
    expect(sent).toEqual(['refresh-0', 'refresh-0']);
    expect(await status()).toBe('connected');
    expect(lines.filter((line) => line.includes('reconnect asked'))).toEqual([]);
  });

  it('still asks to reconnect when the provider refuses the stored refresh token itself', async () => {
    refresh = () => Promise.reject(new PlatformError('oauth_grant_invalid', 'revoked', { status: 400 }));
    expect(await dispatcher('dispatcher@one').credentialFor(orgId, 'office')).toEqual({
      kind: 'none',
      reason: 'reconnect',
    });
    expect(await status()).toBe('reconnect');
  });
});
