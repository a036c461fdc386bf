import { describe, expect, it } from 'vitest';
import { signInSettingsView } from './sign-in-view.ts';

describe('signInSettingsView', () => {
  it('oidc gives issuer, client id, audience and sign-out address when set', () => {
    expect(
      signInSettingsView('oidc', {
        issuer: 'https://idp.test/',
        clientId: 'web',
        audience: 'https://api.test',
        signOutUrl: 'https://idp.test/logout',
      }),
    )
      .toEqual({
        mode: 'oidc',
        issuer: 'https://idp.test/',
        clientId: 'web',
        audience: 'https://api.test',
        signOutUrl: 'https://idp.test/logout',
      });
    expect(signInSettingsView('oidc', { issuer: 'https://idp.test', clientId: 'web' })).toEqual({
      mode: 'oidc',
      issuer: 'https://idp.test',
      clientId: 'web',
    });
  });
  it('cloud-alb gives only where signing out ends; dev-user gives nothing', () => {
    expect(
      signInSettingsView('cloud-alb', {
        signOutUrl: 'https://idp.test/logout?redirect=https://app.test/signed-out',
        issuer: 'x',
      }),
    )
      .toEqual({ mode: 'cloud-alb', signOutUrl: 'https://idp.test/logout?redirect=https://app.test/signed-out' });
    expect(signInSettingsView('dev-user', { issuer: 'x', clientId: 'y' })).toEqual({ mode: 'dev-user' });
  });
  it('refuses an incomplete mode', () => {
    expect(() => signInSettingsView('oidc', { issuer: 'https://idp.test' })).toThrow(
      expect.objectContaining({ code: 'invalid_config' }),
    );
    expect(() => signInSettingsView('cloud-alb', {})).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });
});
