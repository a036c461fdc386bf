/**
 * What GET /api/sign-in-settings answers: the deployment's sign-in mode and that mode's public settings.
 *
 * Source: spec/platform-service.md § Endpoints (/api/sign-in-settings); § Platform sign-in modes.
 */
import { PlatformError } from '../ports/platform-error.ts';

/**
 * Platform sign-in modes, one per deployment.
 *
 * Source: spec/platform-service.md § Platform sign-in modes
 */
export type SignInMode = 'oidc' | 'cloud-alb' | 'dev-user';

/**
 * Public sign-in settings a mode may show. Secrets never appear here.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_OIDC_*, PLATFORM_CLOUD_ALB_SIGN_OUT_URL)
 */
export interface PublicSignInSettings {
  /** oidc: issuer exactly as its discovery document names it. */
  issuer?: string;
  /** oidc: public client id of the web app. */
  clientId?: string;
  /** oidc: API identifier access tokens must name, when the provider needs one. */
  audience?: string;
  /** oidc: PLATFORM_OIDC_SIGN_OUT_URL or the discovery end-session endpoint; cloud-alb:
   * PLATFORM_CLOUD_ALB_SIGN_OUT_URL. */
  signOutUrl?: string;
}

/**
 * Body of GET /api/sign-in-settings.
 *
 * Source: spec/platform-service.md § Endpoints (/api/sign-in-settings)
 */
export type SignInSettingsView =
  | { mode: 'oidc'; issuer: string; clientId: string; audience?: string; signOutUrl?: string }
  | { mode: 'cloud-alb'; signOutUrl: string }
  | { mode: 'dev-user' };

/**
 * The public view of `mode`'s settings: oidc gives issuer, client id, audience and any sign-out address;
 * cloud-alb gives where signing out ends; dev-user gives nothing.
 * @throws PlatformError `invalid_config` when a required setting of the mode is missing (boot rules normally prevent
 * it)
 *
 * Source: spec/platform-service.md § Endpoints (/api/sign-in-settings)
 */
export function signInSettingsView(mode: SignInMode, settings: PublicSignInSettings): SignInSettingsView {
  if (mode === 'dev-user') return { mode };
  if (mode === 'cloud-alb') {
    if (!settings.signOutUrl) {
      throw new PlatformError('invalid_config', 'cloud-alb sign-in needs PLATFORM_CLOUD_ALB_SIGN_OUT_URL.');
    }
    return { mode, signOutUrl: settings.signOutUrl };
  }
  if (!settings.issuer || !settings.clientId) {
    throw new PlatformError('invalid_config', 'oidc sign-in needs PLATFORM_OIDC_ISSUER and PLATFORM_OIDC_CLIENT_ID.');
  }
  return {
    mode,
    issuer: settings.issuer,
    clientId: settings.clientId,
    ...(settings.audience ? { audience: settings.audience } : {}),
    ...(settings.signOutUrl ? { signOutUrl: settings.signOutUrl } : {}),
  };
}

/**
 * Body of GET and POST /api/sign-out: where the browser goes next to end the provider's or load balancer's
 * session too (null: nowhere; dev-user, or an oidc provider with no end-session endpoint).
 *
 * Source: spec/platform-service.md § Endpoints (/api/sign-out)
 */
export interface SignOutView {
  signOutUrl: string | null;
}
