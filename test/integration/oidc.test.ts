/**
 * OIDC sign-in verification against a real local OpenID provider: discovery, JWKS, issuer, audience rule,
 * expiry, tampering, unknown keys, and the userinfo fill-in.
 *
 * Source: spec/platform-service.md § Platform sign-in modes (oidc); § Deployment settings (PLATFORM_OIDC_*).
 */
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitPrincipal } from '../../core/auth/principal.ts';
import { createOidcVerifier } from '../../core/adapters/oidc/index.ts';
import { startOidcProvider, type RunningOidcProvider } from '../helpers/oidc-provider.ts';

let op: RunningOidcProvider;
const audience = 'https://api.cairn.test';

beforeAll(async () => {
  op = await startOidcProvider([
    { clientId: 'web', secret: 'web-secret-0123456789', email: 'ada@example.com', emailVerified: true, name: 'Ada' },
    { clientId: 'other-app', secret: 'other-secret-0123456789', email: 'bob@example.com' },
    { clientId: 'no-email', secret: 'no-email-secret-0123456789' },
  ], audience);
});
afterAll(async () => op.stop());

/** Expects `promise` to reject with `code`/`status` and a message that does not echo `token`. */
async function refusal(promise: Promise<unknown>, token: string, code = 'unauthorized', status = 401): Promise<string> {
  const error = (await promise.then(() => undefined, (e: unknown) => e)) as { code?: string; status?: number; message?: string } | undefined;
  expect(error, 'expected a refusal').toBeDefined();
  expect(error).toMatchObject({ code, status });
  expect(error?.message).not.toContain(token.slice(-20));
  return error?.message ?? '';
}

function countingFetch() {
  const urls: string[] = [];
  const fn = (input: string | URL | Request, init?: RequestInit) => {
    urls.push(String(input instanceof Request ? input.url : input));
    return fetch(input, init);
  };
  return { urls, fn };
}

describe('createOidcVerifier against oidc-provider', () => {
  it('verifies a JWT access token through discovery and JWKS and admits its verified email', async () => {
    const { urls, fn } = countingFetch();
    const verifier = createOidcVerifier({ issuer: op.issuer, clientId: 'web', audience, fetch: fn });
    const claims = await verifier.verifyAccessToken(await op.clientCredentialsToken('web'));
    expect(claims).toMatchObject({ iss: op.issuer, sub: 'web', aud: audience, client_id: 'web', email: 'ada@example.com' });
    expect(admitPrincipal(claims, { emailVerification: true })).toEqual({ id: 'web', email: 'ada@example.com', emailVerified: true, name: 'Ada' });
    expect(urls).toEqual([`${op.issuer}/.well-known/openid-configuration`, `${op.issuer}/jwks`]);
    await verifier.verifyAccessToken(await op.clientCredentialsToken('web'));
    expect(urls).toHaveLength(2);
    expect((await verifier.discovery()).end_session_endpoint).toBe(`${op.issuer}/session/end`);
  });

  it('with PLATFORM_OIDC_AUDIENCE set, refuses a token for another audience', async () => {
    const verifier = createOidcVerifier({ issuer: op.issuer, clientId: 'web', audience });
    const token = await op.clientCredentialsToken('web', { resource: 'https://other-api.test' });
    await refusal(verifier.verifyAccessToken(token), token);
  });

  it('without an audience setting, admits only tokens naming the client id in client_id or azp', async () => {
    const verifier = createOidcVerifier({ issuer: op.issuer, clientId: 'web' });
    expect((await verifier.verifyAccessToken(await op.clientCredentialsToken('web'))).client_id).toBe('web');
    const foreign = await op.clientCredentialsToken('other-app');
    expect(await refusal(verifier.verifyAccessToken(foreign), foreign)).toMatch(/not issued to this application/);
    const exp = Math.floor(Date.now() / 1000) + 300;
    const viaAzp = await op.signWithProviderKey({ iss: op.issuer, sub: 'u-7', azp: 'web', exp });
    expect((await verifier.verifyAccessToken(viaAzp)).sub).toBe('u-7');
    const noClient = await op.signWithProviderKey({ iss: op.issuer, sub: 'u-7', exp });
    await refusal(verifier.verifyAccessToken(noClient), noClient);
    const withAudience = createOidcVerifier({ issuer: op.issuer, clientId: 'web', audience });
    await refusal(withAudience.verifyAccessToken(viaAzp), viaAzp);
  });

  it('refuses a token of another issuer, and a configured issuer that differs from discovery by a trailing slash', async () => {
    const verifier = createOidcVerifier({ issuer: op.issuer, clientId: 'web' });
    const foreign = await op.signWithProviderKey({ iss: 'https://evil.test', sub: 'u-1', client_id: 'web', exp: Math.floor(Date.now() / 1000) + 300 });
    await refusal(verifier.verifyAccessToken(foreign), foreign);
    const slashed = createOidcVerifier({ issuer: `${op.issuer}/`, clientId: 'web' });
    const token = await op.clientCredentialsToken('web');
    const message = await refusal(slashed.verifyAccessToken(token), token, 'sign_in_unavailable', 503);
    expect(message).toContain(`names the issuer ${op.issuer};`);
    expect(message).toContain('PLATFORM_OIDC_ISSUER');
  });

  it('refuses an expired token the provider issued', async () => {
    const token = await op.clientCredentialsToken('web', { resource: 'https://api.cairn.test/short-lived' });
    await new Promise((r) => setTimeout(r, 2_100));
    const verifier = createOidcVerifier({ issuer: op.issuer, clientId: 'web', clockToleranceSeconds: 0 });
    expect(await refusal(verifier.verifyAccessToken(token), token)).toMatch(/expired/);
  });

  it('refuses a tampered token and one signed by a key the issuer does not publish', async () => {
    const verifier = createOidcVerifier({ issuer: op.issuer, clientId: 'web' });
    const [h, p, s] = (await op.clientCredentialsToken('web')).split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'admin' })).toString('base64url')}.${s}`;
    await refusal(verifier.verifyAccessToken(tampered), tampered);
    const { privateKey } = await generateKeyPair('RS256');
    const stranger = await new SignJWT({ client_id: 'web' }).setProtectedHeader({ alg: 'RS256', kid: 'not-published' })
      .setIssuer(op.issuer).setSubject('u-1').setExpirationTime('5m').sign(privateKey);
    await refusal(verifier.verifyAccessToken(stranger), stranger);
    await refusal(verifier.verifyAccessToken('not-a-jwt'), 'not-a-jwt');
  });

  it('answers 503 sign_in_unavailable when the provider cannot be reached', async () => {
    const verifier = createOidcVerifier({ issuer: 'http://127.0.0.1:9', clientId: 'web' });
    await refusal(verifier.verifyAccessToken('x.y.z'), 'x.y.z', 'sign_in_unavailable', 503);
  });
});

describe('identify: userinfo fill-in for tokens without email', () => {
  it('keeps the token claims alone when the provider refuses the token at userinfo (the email rule then refuses)', async () => {
    const verifier = createOidcVerifier({ issuer: op.issuer, clientId: 'no-email' });
    const claims = await verifier.identify(await op.clientCredentialsToken('no-email'));
    expect(claims.email).toBeUndefined();
    expect(() => admitPrincipal(claims, { emailVerification: true })).toThrow(expect.objectContaining({ code: 'email_unverified' }));
  });

  it('fills email claims from userinfo for the same subject, once per token; refuses another subject', async () => {
    let answer: Record<string, unknown> = { sub: 'no-email', email: 'cy@example.com', email_verified: true, iss: 'ignored' };
    let userinfoCalls = 0;
    const fn = async (input: string | URL | Request, init?: RequestInit) => {
      if (String(input) === `${op.issuer}/me`) {
        userinfoCalls += 1;
        expect(new Headers(init?.headers).get('authorization')).toMatch(/^Bearer /);
        return Response.json(answer);
      }
      return fetch(input, init);
    };
    const verifier = createOidcVerifier({ issuer: op.issuer, clientId: 'no-email', fetch: fn });
    const token = await op.clientCredentialsToken('no-email');
    const claims = await verifier.identify(token);
    expect(claims).toMatchObject({ sub: 'no-email', iss: op.issuer, email: 'cy@example.com', email_verified: true });
    await verifier.identify(token);
    expect(userinfoCalls).toBe(1);
    answer = { sub: 'someone-else', email: 'eve@example.com', email_verified: true };
    const other = await op.clientCredentialsToken('no-email');
    await refusal(verifier.identify(other), other);
  });
});
