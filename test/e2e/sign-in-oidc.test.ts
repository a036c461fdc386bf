/**
 * End to end: the product with PLATFORM_SIGN_IN=oidc against a real local OpenID provider. Management
 * routes need a verified access token; public routes and the MCP endpoints do not use platform sign-in.
 * Source: spec/platform-service.md § Authentication, § Endpoints (/api/sign-in-settings).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProduct, type RunningProduct } from '../helpers/product.ts';
import { startOidcProvider, type RunningOidcProvider } from '../helpers/oidc-provider.ts';

let provider: RunningOidcProvider;
let product: RunningProduct;

beforeAll(async () => {
  provider = await startOidcProvider([{ clientId: 'cairn-web', secret: 'cairn-web-secret-value', email: 'ada@example.com', emailVerified: true, name: 'Ada' }]);
  product = await startProduct({ PLATFORM_SIGN_IN: 'oidc', PLATFORM_OIDC_ISSUER: provider.issuer, PLATFORM_OIDC_CLIENT_ID: 'cairn-web', PLATFORM_OIDC_AUDIENCE: provider.defaultResource });
}, 120_000);

afterAll(async () => {
  await product?.stop();
  await provider?.stop();
});

describe('oidc sign-in', () => {
  it('publishes the sign-in settings without a session', async () => {
    const settings = await (await fetch(`${product.url}/api/sign-in-settings`)).json();
    expect(settings).toMatchObject({ mode: 'oidc', issuer: provider.issuer, clientId: 'cairn-web', audience: provider.defaultResource });
  });

  it('refuses management routes without a token and admits a verified access token', async () => {
    expect((await fetch(`${product.url}/api/semantic/projects`)).status).toBe(401);
    expect((await fetch(`${product.url}/api/semantic/projects`, { headers: { authorization: 'Bearer not-a-jwt' } })).status).toBe(401);
    const token = await provider.clientCredentialsToken('cairn-web');
    const response = await fetch(`${product.url}/api/semantic/projects`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ projects: [] });
  });

  it('refuses a state-changing request from another site before anything happens', async () => {
    const token = await provider.clientCredentialsToken('cairn-web');
    const response = await fetch(`${product.url}/api/semantic/projects`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      body: JSON.stringify({ slug: 'should-not-exist' }),
    });
    expect(response.status).toBe(403);
    const list = await (await fetch(`${product.url}/api/semantic/projects`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect(list.projects).toEqual([]);
  });

  it('keeps /api/health and /healthz public', async () => {
    expect((await fetch(`${product.url}/api/health`)).status).toBe(200);
    // /healthz answers 503 until this container's dispatcher holds the single-dispatcher lease, which
    // it takes after its own boot; it is public either way (never 401), and 200 once the lease is held.
    const seen: number[] = [];
    for (let attempt = 0; attempt < 150 && seen.at(-1) !== 200; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      seen.push((await fetch(`${product.url}/healthz`)).status);
    }
    expect(seen.filter((status) => status !== 503 && status !== 200)).toEqual([]);
    expect(seen.at(-1)).toBe(200);
  });
});
