/**
 * Verification of the load balancer's signed identity header (x-lb-oidc-data) against a real loopback key
 * host: padded tokens, signer check, tampering, unknown and malformed key ids, expiry, key caching.
 *
 * Source: spec/platform-service.md § Platform sign-in modes (cloud-alb); § Deployment settings (PLATFORM_CLOUD_ALB_ARN).
 */
import { generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitPrincipal } from '../../core/auth/principal.ts';
import { createAlbVerifier, regionOfArn } from '../../core/adapters/cloud-alb/index.ts';
import { startAlbKeyHost, testAlbArn, type AlbKeyHost } from '../helpers/alb-keys.ts';

let host: AlbKeyHost;
beforeAll(async () => { host = await startAlbKeyHost(); });
afterAll(async () => host.stop());

const verifier = () => createAlbVerifier({ arn: testAlbArn, keyUrlBase: host.keyUrlBase });

async function refusal(promise: Promise<unknown>, token: string): Promise<string> {
  const error = (await promise.then(() => undefined, (e: unknown) => e)) as { code?: string; status?: number; message?: string } | undefined;
  expect(error, 'expected a refusal').toMatchObject({ code: 'unauthorized', status: 401 });
  const payload = token.split('.')[1] ?? '';
  if (payload.length >= 16) expect(error?.message).not.toContain(payload.slice(0, 16));
  return error?.message ?? '';
}

describe('createAlbVerifier', () => {
  it('verifies a padded token signed by the configured load balancer and fetches its key once', async () => {
    const v = verifier();
    const token = await host.sign();
    expect(token).toMatch(/=\./);
    const before = host.requests.length;
    const claims = await v.verify(token);
    expect(claims).toMatchObject({ sub: 'user-1', email: 'ada@example.com', email_verified: 'true' });
    expect(admitPrincipal(claims, { emailVerification: true })).toEqual({ id: 'user-1', email: 'ada@example.com', emailVerified: true, name: 'Ada' });
    await v.verify(await host.sign({ padding: false }));
    expect(host.requests.slice(before)).toEqual([`/${host.kid}`]);
  });

  it('verifies the signature over the segments exactly as sent, padding included', async () => {
    const token = await host.sign();
    const [h, p, sig] = token.split('.');
    const unpaddedInput = `${h!.replace(/=+$/, '')}.${p!.replace(/=+$/, '')}.${sig}`;
    expect(unpaddedInput).not.toBe(token);
    await refusal(verifier().verify(unpaddedInput), unpaddedInput);
  });

  it('refuses a token signed for another load balancer before fetching any key', async () => {
    const before = host.requests.length;
    const token = await host.sign({ signer: testAlbArn.replace('cairn-test', 'someone-else') });
    expect(await refusal(verifier().verify(token), token)).toMatch(/another load balancer/);
    expect(host.requests.length).toBe(before);
  });

  it('refuses a tampered payload and a signature by another key under the known kid', async () => {
    const [h, , s] = (await host.sign()).split('.');
    const forged = Buffer.from(JSON.stringify({ sub: 'admin', email: 'admin@example.com', email_verified: 'true', exp: 9_999_999_999 })).toString('base64url');
    await refusal(verifier().verify(`${h}.${forged}.${s}`), `${h}.${forged}.${s}`);
    const { privateKey } = await generateKeyPair('ES256');
    const token = await host.sign({ privateKey });
    await refusal(verifier().verify(token), token);
  });

  it('refuses an unknown kid (remembering the refusal) and never puts a malformed kid into the key URL', async () => {
    const v = verifier();
    const unknown = await host.sign({ kid: crypto.randomUUID() });
    const before = host.requests.length;
    await refusal(v.verify(unknown), unknown);
    await refusal(v.verify(unknown), unknown);
    expect(host.requests.length).toBe(before + 1);
    const traversal = await host.sign({ kid: '../../etc/passwd' });
    await refusal(v.verify(traversal), traversal);
    expect(host.requests.length).toBe(before + 1);
  });

  it('refuses an expired token and garbage', async () => {
    const token = await host.sign({ expiresInSeconds: -120 });
    expect(await refusal(verifier().verify(token), token)).toMatch(/expired/);
    await refusal(verifier().verify('a.b'), 'a.b.c');
    await refusal(verifier().verify('e30=.e30=.AAAA'), 'e30=.e30=.AAAA');
  });

  it('fetches keys from the region the ARN names by default', async () => {
    expect(regionOfArn(testAlbArn)).toBe('eu-central-1');
    expect(() => regionOfArn('not-an-arn')).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    const urls: string[] = [];
    const v = createAlbVerifier({ arn: testAlbArn, fetch: async (input) => { urls.push(String(input)); return new Response('denied', { status: 403 }); } });
    const token = await host.sign();
    await refusal(v.verify(token), token);
    expect(urls).toEqual([`https://public-keys.auth.elb.eu-central-1.amazonaws.com/${host.kid}`]);
  });
});
