/**
 * Optional platform sign-in (the AG-UI and MCP paths under /api/agui and /api/mcp) on the real API over
 * HTTP, oidc mode: only an absent or invalid credential leaves an anonymous caller; an identity provider
 * that cannot be reached answers 503 `sign_in_unavailable`. Before docs/decisions.md D6 every error was swallowed
 * (`resolvePrincipal(request).catch(() => undefined)`), so the 503 became an anonymous caller.
 *
 * The API has no AG-UI or MCP route yet: an anonymous caller there reaches routing and gets 404 `not_found`;
 * a refused sign-in is answered before routing.
 *
 * Source: spec/platform-service.md § Incoming connection authentication (rules 1, 2);
 * § Platform sign-in modes (oidc); docs/decisions.md D6 § 3.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from '../helpers/api-process.ts';
import { startOidcProvider, type RunningOidcProvider } from '../helpers/oidc-provider.ts';
import { freePort } from '../helpers/ports.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';

let redis: RunningRedis;
let provider: RunningOidcProvider;
/** Its PLATFORM_OIDC_ISSUER is a loopback port nothing listens on. */
let unreachableIdp: RunningApi;
/** Its PLATFORM_OIDC_ISSUER is a real local OpenID provider. */
let reachableIdp: RunningApi;

beforeAll(async () => {
  [redis, provider] = await Promise.all([
    startRedis(),
    startOidcProvider([{ clientId: 'cairn-web', secret: 'cairn-web-secret-value', email: 'ada@example.com', emailVerified: true, name: 'Ada' }]),
  ]);
  const oidc = (issuer: string) => ({ PLATFORM_SIGN_IN: 'oidc', PLATFORM_OIDC_ISSUER: issuer, PLATFORM_OIDC_CLIENT_ID: 'cairn-web' });
  [unreachableIdp, reachableIdp] = await Promise.all([
    startApi(redis.url, oidc(`http://127.0.0.1:${await freePort()}`)),
    startApi(redis.url, { ...oidc(provider.issuer), PLATFORM_OIDC_AUDIENCE: provider.defaultResource }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([unreachableIdp?.stop(), reachableIdp?.stop()]);
  await provider?.stop();
  await redis?.stop();
});

const call = async (api: RunningApi, path: string, authorization?: string) => {
  const response = await fetch(`${api.url}${path}`, { method: 'POST', headers: authorization ? { authorization } : {} });
  return { status: response.status, error: ((await response.json()) as { error?: { code: string } }).error?.code };
};

describe('optional sign-in on /api/mcp and /api/agui', () => {
  it('answers 503 sign_in_unavailable when the identity provider cannot be reached, never an anonymous caller', async () => {
    for (const path of ['/api/mcp/connection-token', '/api/agui/connection-token']) {
      expect(await call(unreachableIdp, path, 'Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln')).toEqual({ status: 503, error: 'sign_in_unavailable' });
    }
  });

  it('leaves an anonymous caller without a credential, even with the provider away', async () => {
    expect(await call(unreachableIdp, '/api/mcp/connection-token')).toEqual({ status: 404, error: 'not_found' });
  });

  it('leaves an anonymous caller for a credential that does not verify (it may be the endpoint\'s own)', async () => {
    for (const token of ['not-a-jwt', 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln']) {
      expect(await call(reachableIdp, '/api/mcp/connection-token', `Bearer ${token}`)).toEqual({ status: 404, error: 'not_found' });
    }
  });

  it('still refuses a required route: 503 with the provider away, 401 for a bad token', async () => {
    const projects = async (api: RunningApi) => (await fetch(`${api.url}/api/semantic/projects`, { headers: { authorization: 'Bearer not-a-jwt' } })).status;
    expect(await projects(unreachableIdp)).toBe(503);
    expect(await projects(reachableIdp)).toBe(401);
  });
});
