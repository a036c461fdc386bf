/**
 * Public routes the web app reads before sign-in: GET /api/sign-in-settings, GET /api/branding, and
 * /api/sign-out (GET and POST), which works without a session.
 *
 * Source: spec/platform-service.md § Endpoints (/api/sign-in-settings, /api/branding, /api/sign-out);
 * § Platform sign-in modes; § Rules 18 (branding, powered-by note).
 */
import { Elysia } from 'elysia';
import { signInSettingsView, type SignOutView } from '../../core/auth/sign-in-view.ts';
import type { BrandingConfig } from '../../core/config/config-model.ts';
import { brandingView } from '../../core/config/branding-view.ts';
import type { SignInSettings } from '../../core/config/platform-env-model.ts';
import type { Logger } from '../../core/ports/logger.ts';
import { errorToResponse, json } from './http-helpers.ts';
import { queryRule } from './query-params.ts';

/**
 * Options of {@link authRoutes}.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_SIGN_IN and its mode's variables)
 */
export interface AuthRoutesOptions {
  /** The deployment's sign-in settings (ServiceEnv.signIn). */
  signIn: SignInSettings;
  /** oidc: the issuer's discovery document, for the end-session endpoint when PLATFORM_OIDC_SIGN_OUT_URL is unset. */
  oidcDiscovery?: () => Promise<{ end_session_endpoint?: string }>;
  /** The config's branding section, already sanitised. */
  branding: BrandingConfig;
  logger: Logger;
}

/**
 * Set-Cookie values expiring the load balancer's session cookie shards `<name>-0` … `<name>-3`.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_CLOUD_ALB_SESSION_COOKIE)
 */
export function expiredSessionCookies(name: string): string[] {
  return [0, 1, 2, 3].map((shard) => `${name}-${shard}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Secure; HttpOnly`);
}

/**
 * Mounts the routes (public: the request rules let them through without sign-in). They take no query
 * parameters (400 for any).
 *
 * Source: spec/platform-service.md § Endpoints
 */
export function authRoutes(options: AuthRoutesOptions) {
  const signOutUrl = async (): Promise<string | undefined> => {
    const { signIn } = options;
    if (signIn.mode === 'dev-user') return undefined;
    if (signIn.mode === 'cloud-alb' || signIn.signOutUrl) return signIn.signOutUrl;
    try {
      return (await options.oidcDiscovery?.())?.end_session_endpoint;
    } catch {
      return undefined;
    }
  };
  const signOut = async (): Promise<Response> => {
    const view: SignOutView = { signOutUrl: (await signOutUrl()) ?? null };
    const response = json(view);
    if (options.signIn.mode === 'cloud-alb') for (const cookie of expiredSessionCookies(options.signIn.sessionCookie)) response.headers.append('set-cookie', cookie);
    return response;
  };
  const settingsView = async (): Promise<Response> => {
    const { signIn } = options;
    try {
      const publicSettings = signIn.mode === 'oidc' ? { issuer: signIn.issuer, clientId: signIn.clientId, audience: signIn.audience } : {};
      return json(signInSettingsView(signIn.mode, { ...publicSettings, signOutUrl: await signOutUrl() }));
    } catch (error) {
      return errorToResponse(error, options.logger);
    }
  };
  return new Elysia({ name: 'auth-routes', seed: Math.random() })
    .onBeforeHandle(queryRule())
    .get('/api/sign-in-settings', settingsView)
    .get('/api/branding', () => json(brandingView(options.branding)))
    .get('/api/sign-out', signOut)
    .post('/api/sign-out', signOut, { parse: 'none' });
}
