/**
 * oidc sign-in in the browser: the authorization-code flow with PKCE through `oidc-client-ts`, tokens kept
 * in memory only (an in-memory user store; only the short-lived PKCE state of a redirect in progress is
 * kept in sessionStorage), restored after a reload from a hidden frame returning to /silent-callback.html,
 * renewed the same way before they expire.
 *
 * Source: spec/platform-service.md § Platform sign-in modes (oidc), § Rules 3, 6.
 */
import type { SignInSettingsView } from '../../../core/auth/sign-in-view.ts';
import { InMemoryWebStorage, UserManager, WebStorageStateStore, type User } from 'oidc-client-ts';

/** The public oidc settings of GET /api/sign-in-settings. */
export type OidcSettings = Extract<SignInSettingsView, { mode: 'oidc' }>;

/** Where a finished sign-in at the provider left the browser. */
export type OidcStart =
  | { kind: 'signed-in'; user: User }
  | { kind: 'needs-sign-in' }
  | { kind: 'refused'; reason: 'waitlist' | 'other'; description?: string };

/** One provider client per page load. */
export function oidcClient(settings: OidcSettings, origin: string): UserManager {
  return new UserManager({
    authority: settings.issuer,
    client_id: settings.clientId,
    redirect_uri: `${origin}/`,
    silent_redirect_uri: `${origin}/silent-callback.html`,
    post_logout_redirect_uri: `${origin}/`,
    response_type: 'code',
    scope: 'openid email profile',
    ...(settings.audience ? { resource: settings.audience } : {}),
    userStore: new WebStorageStateStore({ store: new InMemoryWebStorage() }),
    automaticSilentRenew: true,
    silentRequestTimeoutInSeconds: 8,
    loadUserInfo: false,
  });
}

/**
 * Finishes a redirect back from the provider (`?code=…&state=…`, or `?error=…`), else tries the hidden
 * frame; the URL is put back to the page the person was on. A refusal naming `on_waitlist` is told apart
 * from every other reason (rule 6).
 */
export async function startOidc(manager: UserManager, location: Location, history: History): Promise<OidcStart> {
  const query = new URLSearchParams(location.search);
  const restoring = sessionStorage.getItem(restoringFlag) === '1';
  sessionStorage.removeItem(restoringFlag);
  if (query.has('error') && restoring && quietRefusals.has(query.get('error') ?? '')) {
    // The top-level restore found no session at the provider: simply not signed in.
    sessionStorage.removeItem(signedInFlag);
    history.replaceState(null, '', location.pathname);
    return { kind: 'needs-sign-in' };
  }
  if (query.has('error')) {
    const description = query.get('error_description') ?? undefined;
    history.replaceState(null, '', location.pathname);
    const waitlist = [query.get('error'), description].some((text) => text?.includes('on_waitlist'));
    return { kind: 'refused', reason: waitlist ? 'waitlist' : 'other', ...(description ? { description } : {}) };
  }
  if (query.has('code') && query.has('state')) {
    const user = await manager.signinRedirectCallback(location.href);
    const back = typeof user.state === 'string' && user.state.startsWith('/') ? user.state : '/';
    history.replaceState(null, '', back);
    sessionStorage.setItem(signedInFlag, '1');
    return { kind: 'signed-in', user };
  }
  try {
    return { kind: 'signed-in', user: await manager.signinSilent() ?? raise() };
  } catch {
    // The hidden frame gets no provider cookie where third-party cookies are blocked (the app and the
    // provider on different sites). This tab was signed in before the reload: ask once at the top level.
    if (sessionStorage.getItem(signedInFlag) !== '1') return { kind: 'needs-sign-in' };
    sessionStorage.setItem(restoringFlag, '1');
    await manager.signinRedirect({ prompt: 'none', state: location.pathname + location.search });
    return new Promise<never>(() => undefined); // the page is leaving for the provider
  }
}

/** sessionStorage marker (no token): this tab signed in, so a reload restores at the top level when the frame cannot. */
export const signedInFlag = 'cairn.oidc.signed-in';
/** sessionStorage marker: a top-level prompt=none restore is under way. */
const restoringFlag = 'cairn.oidc.restoring';
/** What a prompt=none authorization answers when the provider has no usable session (not a refusal). */
const quietRefusals = new Set(['login_required', 'interaction_required', 'consent_required', 'account_selection_required']);

function raise(): never {
  throw new Error('no user from the hidden frame');
}

/** Sends the person to the provider, to come back to `returnTo` (a path of this app). */
export function signInAtProvider(manager: UserManager, returnTo: string): Promise<void> {
  return manager.signinRedirect({ state: returnTo });
}
