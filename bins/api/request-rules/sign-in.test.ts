import { describe, expect, it } from 'vitest';
import { bearerToken, createPrincipalResolver } from './sign-in.ts';

const claims = { sub: 'u1', email: 'ada@example.com', email_verified: true };

describe('createPrincipalResolver', () => {
  it('dev-user answers the fixed local user for every request', async () => {
    const resolve = createPrincipalResolver({ signIn: { mode: 'dev-user' }, emailVerification: true });
    expect(await resolve(new Request('http://x/'))).toEqual({ id: 'dev-user', email: 'dev@localhost', emailVerified: true, name: 'Dev User' });
  });
  it('oidc reads only a Bearer token; none means no principal', async () => {
    const seen: string[] = [];
    const resolve = createPrincipalResolver({ signIn: { mode: 'oidc', verifier: { identify: async (t) => { seen.push(t); return claims; } } }, emailVerification: true });
    expect(await resolve(new Request('http://x/'))).toBeUndefined();
    expect(await resolve(new Request('http://x/', { headers: { authorization: 'bearer abc.def.ghi' } }))).toMatchObject({ id: 'u1' });
    expect(seen).toEqual(['abc.def.ghi']);
  });
  it('cloud-alb reads x-lb-oidc-data and applies the verified-email rule', async () => {
    const resolve = createPrincipalResolver({ signIn: { mode: 'cloud-alb', verifier: { verify: async () => ({ ...claims, email_verified: 'false' }) } }, emailVerification: true });
    expect(await resolve(new Request('http://x/'))).toBeUndefined();
    await expect(resolve(new Request('http://x/', { headers: { 'x-lb-oidc-data': 'a.b.c' } }))).rejects.toMatchObject({ code: 'email_unverified', status: 403 });
  });
  it('parses Bearer headers strictly', () => {
    const of = (value: string) => bearerToken(new Request('http://x/', { headers: { authorization: value } }));
    expect(of('Bearer t0k')).toBe('t0k');
    expect(of('Basic dXNlcjpwYXNz')).toBeUndefined();
    expect(of('Bearer a b')).toBeUndefined();
  });
});
