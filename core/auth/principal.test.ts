import { describe, expect, it } from 'vitest';
import { admitPrincipal, devUserPrincipal } from './principal.ts';

describe('admitPrincipal (verified-email rule)', () => {
  const on = { emailVerification: true, managedDomainClaim: 'custom:managed_domain' };

  it('admits a verified address, keeping name and the managed domain', () => {
    expect(
      admitPrincipal({
        sub: 'u1',
        email: 'ada@example.com',
        email_verified: true,
        name: 'Ada',
        'custom:managed_domain': 'Example.com',
      }, on),
    )
      .toEqual({ id: 'u1', email: 'ada@example.com', emailVerified: true, name: 'Ada', managedDomain: 'example.com' });
  });
  it('accepts email_verified as the text "true" (load balancer claims)', () => {
    expect(admitPrincipal({ sub: 'u1', email: 'a@x.test', email_verified: 'true' }, on).emailVerified).toBe(true);
  });
  it('refuses an unverified or unstated address with email_unverified 403 asking to verify it', () => {
    for (const email_verified of [false, 'false', undefined]) {
      try {
        admitPrincipal({ sub: 'u1', email: 'a@x.test', email_verified }, on);
        expect.unreachable();
      } catch (error) {
        expect(error).toMatchObject({ code: 'email_unverified', status: 403 });
        expect((error as Error).message).toMatch(/Verify your email address a@x\.test/);
      }
    }
  });
  it('refuses claims without an email address, and without a subject (401)', () => {
    expect(() => admitPrincipal({ sub: 'u1', email_verified: true }, on)).toThrow(
      expect.objectContaining({ code: 'email_unverified', status: 403 }),
    );
    expect(() => admitPrincipal({ email: 'a@x.test', email_verified: true }, on)).toThrow(
      expect.objectContaining({ code: 'unauthorized', status: 401 }),
    );
  });
  it('vouches for every supplied address when email verification is off', () => {
    expect(admitPrincipal({ sub: 'u1', email: 'a@x.test', email_verified: false }, { emailVerification: false }))
      .toEqual({ id: 'u1', email: 'a@x.test', emailVerified: true });
  });
  it('has one fixed dev user', () => {
    expect(devUserPrincipal).toMatchObject({ id: 'dev-user', email: 'dev@localhost', emailVerified: true });
    expect(Object.isFrozen(devUserPrincipal)).toBe(true);
  });
});
