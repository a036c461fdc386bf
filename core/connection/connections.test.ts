/**
 * The connection use cases on the in-memory document store with real randomness and SHA-256: addresses are
 * stable across delete and re-registration and distinct per environment; endpoint tokens are shown once,
 * stored only as digests, and regeneration replaces the digest at once; settings are checked with messages
 * naming the field; the protocol is fixed. The scope port is a fake (it stands for core/org's role check).
 * Source: spec/platform-service.md § Incoming connection; docs/decisions.md D8 § Connections.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { cryptoIds } from '../adapters/runtime/system.ts';
import { PlatformError } from '../ports/platform-error.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import {
  type AdmissionDeps,
  admitCaller,
  applyPendingEdits,
  connectionByAddress,
  connectionCollections,
  type ConnectionDeps,
  createConnection,
  deleteConnection,
  endpointTokenPrefix,
  ensureConnectionIndexes,
  getConnection,
  listConnections,
  regenerateToken,
  updateConnection,
} from './index.ts';

const caller = { subject: 'maria' };
let deps: ConnectionDeps;
let roleAsked: string[];

beforeEach(async () => {
  roleAsked = [];
  const docs = createMemoryDocumentStore();
  let t = 0;
  deps = {
    docs,
    ids: cryptoIds,
    production: false,
    clock: { now: () => new Date(Date.UTC(2026, 10, 24, 9, 0, t++)) },
    scope: async (_caller, agent, environment, role) => {
      roleAsked.push(role);
      if (environment === 'nope') {
        throw new PlatformError('environment_not_found', 'no such environment', { status: 404 });
      }
      return { orgId: 'org1', agentId: `agent-${agent}`, environment };
    },
  };
  await ensureConnectionIndexes(deps);
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(() => 'no refusal', (e: PlatformError) => `${e.status} ${e.code}: ${e.message}`);
const admission: AdmissionDeps = {
  ids: cryptoIds,
  jwt: {
    verify: async () => {
      throw new Error('not oidc');
    },
  },
  memberMayUse: async () => false,
};

describe('endpoint addresses', () => {
  it('are long, URL-safe, stable across delete and re-registration, and distinct per environment', async () => {
    const first = (await createConnection(deps, caller, {
      agent: 'a',
      environment: 'main',
      input: { identifier: 'chat', protocol: 'agui', auth: 'public' },
    }))
      .connection;
    expect(first.address).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(await connectionByAddress(deps, first.address)).toMatchObject({ identifier: 'chat' });
    await deleteConnection(deps, caller, { agent: 'a', environment: 'main', identifier: 'chat' });
    expect(await connectionByAddress(deps, first.address)).toBeNull();
    const again = (await createConnection(deps, caller, {
      agent: 'a',
      environment: 'main',
      input: { identifier: 'chat', protocol: 'webhook', auth: 'public' },
    }))
      .connection;
    expect(again.address).toBe(first.address);
    const staging = (await createConnection(deps, caller, {
      agent: 'a',
      environment: 'staging',
      input: { identifier: 'chat', protocol: 'agui', auth: 'public' },
    }))
      .connection;
    expect(staging.address).not.toBe(first.address);
    const other = (await createConnection(deps, caller, {
      agent: 'a',
      environment: 'main',
      input: { identifier: 'chat-2', protocol: 'agui', auth: 'public' },
    }))
      .connection;
    expect(new Set([first.address, staging.address, other.address]).size).toBe(3);
    expect(roleAsked).toEqual(['maintainer', 'maintainer', 'maintainer', 'maintainer', 'maintainer']);
  });
});

describe('endpoint tokens', () => {
  it(
    'are shown once with the prefix, stored only as a digest, and ' + 'regeneration stops the old one at once',
    async () => {
      const created = await createConnection(deps, caller, {
        agent: 'a',
        environment: 'main',
        input: {
          identifier: 'tools',
          protocol: 'mcp',
          auth: 'bearer',
        },
      });
      const token = created.token!;
      expect(token.startsWith(endpointTokenPrefix)).toBe(true);
      expect(token.length).toBeGreaterThanOrEqual(endpointTokenPrefix.length + 43);
      const stored = await deps.docs.collection(connectionCollections.connections).findOne({ identifier: 'tools' });
      expect(JSON.stringify(stored)).not.toContain(token);
      expect(stored).toMatchObject({ tokenDigest: await cryptoIds.sha256Hex(token) });
      expect(await getConnection(deps, caller, { agent: 'a', environment: 'main', identifier: 'tools' })).not
        .toHaveProperty('token');
      const admit = async (t: string) =>
        admitCaller(admission, (await connectionByAddress(deps, created.connection.address))!, {
          authorization: `Bearer ${t}`,
        });
      expect((await admit(token)).admitted).toBe(true);
      const renewed = await regenerateToken(deps, caller, { agent: 'a', environment: 'main', identifier: 'tools' });
      expect(renewed.token).not.toBe(token);
      expect(await admit(token)).toMatchObject({ admitted: false, status: 401, code: 'connection_unauthorized' });
      expect((await admit(renewed.token)).admitted).toBe(true);
    },
  );

  it('a token opens only its own connection (rule 4)', async () => {
    const one = await createConnection(deps, caller, {
      agent: 'a',
      environment: 'main',
      input: {
        identifier: 'one',
        protocol: 'webhook',
        auth: 'bearer',
      },
    });
    const two = await createConnection(deps, caller, {
      agent: 'a',
      environment: 'main',
      input: {
        identifier: 'two',
        protocol: 'webhook',
        auth: 'bearer',
      },
    });
    expect(await admitCaller(admission, two.connection, { authorization: `Bearer ${one.token}` })).toMatchObject({
      admitted: false,
      status: 401,
    });
  });

  it(
    'switching to bearer issues a token once; edits wait for the next publish; leaving bearer drops the digest ' +
      'then',
    async () => {
      await createConnection(deps, caller, {
        agent: 'a',
        environment: 'main',
        input: { identifier: 'hook', protocol: 'webhook', auth: 'public' },
      });
      expect(await refusal(regenerateToken(deps, caller, { agent: 'a', environment: 'main', identifier: 'hook' })))
        .toMatch(
          /^400 invalid_argument: auth: connection "hook" uses "public".*switch it to bearer/,
        );
      const switched = await updateConnection(deps, caller, { agent: 'a', environment: 'main', identifier: 'hook' }, {
        auth: 'bearer',
      });
      expect(switched.token).toMatch(/^cairn_ep_/);
      expect(
        (await updateConnection(deps, caller, { agent: 'a', environment: 'main', identifier: 'hook' }, {
          rate: { perCaller: 10, perEndpoint: 20 },
        })).token,
      ).toBeUndefined();
      // Rule 6: until the environment is published, the settings in effect are unchanged.
      const waiting = await getConnection(deps, caller, { agent: 'a', environment: 'main', identifier: 'hook' });
      expect(waiting).toMatchObject({
        auth: 'public',
        pending: { auth: 'bearer', rate: { perCaller: 10, perEndpoint: 20 }, changedBy: caller.subject },
      });
      expect((await admitCaller(admission, waiting, {})).admitted).toBe(true);
      // Token regeneration does not wait: the pending switch takes the new token.
      const renewed = await regenerateToken(deps, caller, { agent: 'a', environment: 'main', identifier: 'hook' });
      expect(await applyPendingEdits(deps, { agentId: 'agent-a', environment: 'main' })).toEqual(['hook']);
      const live = await getConnection(deps, caller, { agent: 'a', environment: 'main', identifier: 'hook' });
      expect(live).toMatchObject({ auth: 'bearer', rate: { perCaller: 10, perEndpoint: 20 } });
      expect(live).not.toHaveProperty('pending');
      expect(await admitCaller(admission, live, { authorization: `Bearer ${switched.token}` })).toMatchObject({
        admitted: false,
        status: 401,
      });
      expect((await admitCaller(admission, live, { authorization: `Bearer ${renewed.token}` })).admitted).toBe(true);
      expect(await applyPendingEdits(deps, { agentId: 'agent-a', environment: 'main' })).toEqual([]);
      await updateConnection(deps, caller, { agent: 'a', environment: 'main', identifier: 'hook' }, { auth: 'public' });
      await applyPendingEdits(deps, { agentId: 'agent-a', environment: 'main' });
      expect(await getConnection(deps, caller, { agent: 'a', environment: 'main', identifier: 'hook' })).not
        .toHaveProperty('tokenDigest');
    },
  );
});

describe('settings', () => {
  it('defaults rates by protocol and algorithms to RS256', async () => {
    const chat = (await createConnection(deps, caller, {
      agent: 'a',
      environment: 'main',
      input: {
        identifier: 'chat',
        protocol: 'agui',
        auth: 'oidc',
        oidc: { issuer: 'https://id.example.com', audience: 'chat' },
      },
    })).connection;
    expect(chat).toMatchObject({
      rate: { perCaller: 30, perEndpoint: 300 },
      oidc: { algorithms: ['RS256'] },
      origins: [],
    });
    const hook = (await createConnection(deps, caller, {
      agent: 'a',
      environment: 'main',
      input: { identifier: 'hook', protocol: 'webhook', auth: 'public' },
    }))
      .connection;
    expect(hook.rate).toEqual({ perCaller: 600, perEndpoint: 600 });
    expect((await listConnections(deps, caller, 'a', 'main')).map((c) => c.identifier)).toEqual(['chat', 'hook']);
  });

  it('refuses bad settings with messages naming the field', async () => {
    const create = (input: Record<string, unknown>) =>
      refusal(
        createConnection(
          deps,
          caller,
          {
            agent: 'a',
            environment: 'main',
            input: { identifier: 'x', protocol: 'agui', auth: 'public', ...input } as never,
          },
        ),
      );
    expect(await create({ identifier: 'Bad Id' })).toMatch(/^400 invalid_argument: identifier: "Bad Id" is not a slug/);
    expect(await create({ protocol: 'mcp' })).toMatch(
      /^400 invalid_argument: auth: an MCP connection cannot be public/,
    );
    expect(await create({ protocol: 'grpc' })).toMatch(
      /^400 invalid_argument: protocol: "grpc" is not a protocol; use one of agui, mcp, webhook/,
    );
    expect(await create({ auth: 'oidc' })).toMatch(/^400 invalid_argument: oidc: auth "oidc" needs the OIDC settings/);
    expect(await create({ auth: 'oidc', oidc: { issuer: 'https://id.example.com', audience: ' ' } })).toMatch(
      /oidc\.audience: the audience is required/,
    );
    expect(await create({ auth: 'oidc', oidc: { issuer: 'http://id.example.com', audience: 'a' } })).toMatch(
      /oidc\.issuer: "http:\/\/id\.example\.com" must be an https URL/,
    );
    expect(
      await create({ auth: 'oidc', oidc: { issuer: 'https://id.example.com', audience: 'a', algorithms: ['HS256'] } }),
    ).toMatch(/oidc\.algorithms: "HS256" is not accepted/);
    expect(await create({ origins: ['https://app.example.com/'] })).toMatch(
      /origins: "https:\/\/app\.example\.com\/" is not a site/,
    );
    expect(await create({ origins: ['*', 'https://a.example.com'] })).toMatch(/origins: "\*" already allows any site/);
    expect(await create({ protocol: 'webhook', origins: ['https://a.example.com'] })).toMatch(
      /origins: a webhook takes no browser origins/,
    );
    expect(await create({ rate: { perCaller: 0, perEndpoint: 10 } })).toMatch(
      /rate\.perCaller: 0 is not a whole number/,
    );
    expect(await create({ rate: { perCaller: 50, perEndpoint: 10 } })).toMatch(
      /rate\.perCaller: 50 calls per caller exceed/,
    );
  });

  it(
    'refuses local, loopback, private and link-local issuers and JWKS URLs, and plain http, ' +
      'naming PLATFORM_ALLOW_PRIVATE_URLS',
    async () => {
      const create = (identifier: string, oidc: Record<string, string>) =>
        refusal(
          createConnection(deps, caller, {
            agent: 'a',
            environment: 'main',
            input: {
              identifier,
              protocol: 'mcp',
              auth: 'oidc',
              oidc: { audience: 'a', ...oidc } as { issuer: string; audience: string },
            },
          }),
        );
      const refused = [
        'https://127.0.0.2:9',
        'https://localhost:9',
        'https://LOCALHOST./x',
        'https://idp.localhost',
        'https://[::1]/',
        'https://10.1.2.3',
        'https://192.168.0.10',
        'https://172.16.0.1',
        'https://169.254.169.254/latest',
        'https://[fe80::1]',
        'https://[fd00::1]',
        'https://[::ffff:127.0.0.1]',
        'https://0.0.0.0',
        'https://2130706433',
        'https://100.64.0.1',
        'http://id.example.com',
      ];
      for (const [i, issuer] of refused.entries()) {
        expect(await create(`i${i}`, { issuer }), issuer)
          .toMatch(/^400 invalid_argument: oidc\.issuer: .*PLATFORM_ALLOW_PRIVATE_URLS=true/);
      }
      expect(await create('j', { issuer: 'https://id.example.com', jwksUrl: 'https://127.0.0.1/keys' }))
        .toMatch(/^400 invalid_argument: oidc\.jwksUrl: .*PLATFORM_ALLOW_PRIVATE_URLS/);
      expect(await create('ok', { issuer: 'https://id.example.com', jwksUrl: 'https://93.184.215.14/keys' }))
        .toBe('no refusal');
      deps.allowPrivateUrls = true;
      const oidc = { issuer: 'http://127.0.0.1:9000', audience: 'a' };
      expect(
        (await createConnection(deps, caller, {
          agent: 'a',
          environment: 'main',
          input: { identifier: 'dev', protocol: 'mcp', auth: 'oidc', oidc },
        }))
          .connection.oidc?.issuer,
      ).toBe(oidc.issuer);
      deps.production = true;
      expect(
        await refusal(createConnection(deps, caller, {
          agent: 'a',
          environment: 'main',
          input: {
            identifier: 'prod',
            protocol: 'mcp',
            auth: 'oidc',
            oidc,
          },
        })),
      ).toMatch(/^400 invalid_argument: oidc\.issuer: .* must be an https URL; plain http is refused/);
    },
  );

  it('refuses a second identifier in the environment (409) and another protocol on edit (409)', async () => {
    await createConnection(deps, caller, {
      agent: 'a',
      environment: 'main',
      input: { identifier: 'chat', protocol: 'agui', auth: 'public' },
    });
    expect(
      await refusal(
        createConnection(deps, caller, {
          agent: 'a',
          environment: 'main',
          input: { identifier: 'chat', protocol: 'mcp', auth: 'bearer' },
        }),
      ),
    ).toMatch(/^409 connection_exists: Environment "main" already has a connection "chat"/);
    expect(
      await refusal(
        updateConnection(deps, caller, { agent: 'a', environment: 'main', identifier: 'chat' }, { protocol: 'mcp' }),
      ),
    ).toMatch(
      /^409 protocol_fixed: protocol: a connection's protocol is fixed/,
    );
    expect(
      await refusal(
        updateConnection(deps, caller, { agent: 'a', environment: 'main', identifier: 'chat' }, {
          protocol: 'agui',
          origins: ['*'],
        }),
      ),
    )
      .toBe('no refusal');
    expect(await refusal(getConnection(deps, caller, { agent: 'a', environment: 'main', identifier: 'nothing' })))
      .toMatch(/^404 connection_not_found/);
    expect(await refusal(listConnections(deps, caller, 'a', 'nope'))).toMatch(/^404 environment_not_found/);
  });
});
