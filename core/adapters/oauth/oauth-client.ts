/**
 * The OAuthClient over `openid-client` (OAuth 2.0 / OpenID Connect, panva): discovery of an app's provider (kept per
 * app, client id and secret, so a rotated secret read at boot is the one used), the authorization URL with S256
 * PKCE and state, the code exchange (state, `iss` and any ID token checked by the library), refresh and revocation.
 * The client authenticates with HTTP Basic (client_secret_basic).
 *
 * Source: spec/platform-service.md § Rules 17; docs/decisions.md D22 § 4.
 */
import * as oidc from 'openid-client';
import type {
  AuthorizationAnswer,
  AuthorizationRequest,
  OAuthAppClient,
  OAuthClient,
  OAuthTokens,
} from '../../ports/oauth-client.ts';
import { PlatformError } from '../../ports/platform-error.ts';

/** Options of {@link createOAuthClient}. */
export interface OAuthClientOptions {
  /** The clock of `expiresAt`; default the system clock. */
  now?: () => Date;
}

/**
 * An OAuth client for every configured app.
 *
 * Source: spec/platform-service.md § Rules 17
 */
export function createOAuthClient(options: OAuthClientOptions = {}): OAuthClient {
  const client: ClientState = { now: options.now ?? (() => new Date()), configs: new Map() };
  return {
    authorizationUrl: async (app, request) => (await authorizationUrlOf(client, app, request)).href,
    exchangeCode: (app, answer) => guarded(app, () => exchangeCode(client, app, answer)),
    refresh: (app, refreshToken) =>
      guarded(app, async () => {
        const tokens = tokensOf(client, await oidc.refreshTokenGrant(await configOf(client, app), refreshToken));
        return { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken };
      }),
    revoke: (app, token) =>
      guarded(app, async () => {
        const config = await configOf(client, app);
        if (!config.serverMetadata().revocation_endpoint) return false;
        await oidc.tokenRevocation(config, token);
        return true;
      }),
    pkce: async () => {
      const codeVerifier = oidc.randomPKCECodeVerifier();
      return {
        codeVerifier,
        codeChallenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        state: oidc.randomState(),
      };
    },
  };
}

/** What the client's methods share: its clock and the providers' configurations by app, client id and secret. */
interface ClientState {
  now: () => Date;
  configs: Map<string, Promise<oidc.Configuration>>;
}

/** `app`'s provider configuration, discovered once per app, client id and secret (a failure is tried again). */
function configOf(client: ClientState, app: OAuthAppClient): Promise<oidc.Configuration> {
  const key = JSON.stringify([app.appId, app.clientId, app.clientSecret, app.issuer, app.tokenUrl]);
  let found = client.configs.get(key);
  if (found === undefined) {
    found = configure(app);
    client.configs.set(key, found);
    found.catch(() => client.configs.delete(key));
  }
  return found;
}

/** The tokens of a token endpoint's answer; `expiresAt` from its `expires_in` on the client's clock. */
function tokensOf(
  client: ClientState,
  answer: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers,
): OAuthTokens {
  const expiresIn = answer.expiresIn();
  return {
    accessToken: answer.access_token,
    ...(answer.refresh_token ? { refreshToken: answer.refresh_token } : {}),
    ...(expiresIn !== undefined ? { expiresAt: new Date(client.now().getTime() + expiresIn * 1000) } : {}),
    ...(answer.scope ? { scope: answer.scope } : {}),
  };
}

/** The authorization URL of `request`: the code flow with S256 PKCE, state and the app's scopes. */
async function authorizationUrlOf(client: ClientState, app: OAuthAppClient, request: AuthorizationRequest) {
  return oidc.buildAuthorizationUrl(await guarded(app, () => configOf(client, app)), {
    redirect_uri: request.redirectUri,
    response_type: 'code',
    state: request.state,
    code_challenge: request.codeChallenge,
    code_challenge_method: 'S256',
    ...(app.scopes.length > 0 ? { scope: app.scopes.join(' ') } : {}),
  });
}

/** Exchanges the code of `answer` (its state, `iss` and any ID token checked by the library). */
async function exchangeCode(
  client: ClientState,
  app: OAuthAppClient,
  answer: AuthorizationAnswer,
): Promise<OAuthTokens> {
  const config = await configOf(client, app);
  const callbackUrl = new URL(answer.redirectUri);
  callbackUrl.search = new URLSearchParams(answer.query).toString();
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: answer.codeVerifier,
    expectedState: answer.state,
    idTokenExpected: false,
  });
  return tokensOf(client, tokens);
}

/** The provider's configuration: discovered from its issuer, or built from the app's endpoints. */
async function configure(app: OAuthAppClient): Promise<oidc.Configuration> {
  const auth = oidc.ClientSecretBasic(app.clientSecret);
  if (app.issuer !== undefined) {
    return await oidc.discovery(new URL(app.issuer), app.clientId, undefined, auth);
  }
  const metadata: oidc.ServerMetadata = {
    issuer: new URL(app.tokenUrl!).origin,
    authorization_endpoint: app.authorizationUrl,
    token_endpoint: app.tokenUrl,
    ...(app.revocationUrl ? { revocation_endpoint: app.revocationUrl } : {}),
  };
  return new oidc.Configuration(metadata, app.clientId, undefined, auth);
}

/** Runs `work`, turning the library's errors into PlatformErrors that name the provider's error code only. */
async function guarded<T>(app: OAuthAppClient, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof PlatformError) throw error;
    const code = providerCode(error);
    if (error instanceof oidc.AuthorizationResponseError) {
      throw new PlatformError('oauth_denied', `The provider of ${app.appId} refused the sign-in (${code}).`, {
        status: 400,
      });
    }
    if (code === 'invalid_grant') {
      throw new PlatformError(
        'oauth_grant_invalid',
        `The provider of ${app.appId} refused the grant as invalid, expired or revoked; connect again.`,
        { status: 400 },
      );
    }
    throw new PlatformError('oauth_provider_failed', `The provider of ${app.appId} could not be used (${code}).`, {
      status: 502,
    });
  }
}

/** The provider's error code, or the library's own, or the kind of failure; never a token. */
function providerCode(error: unknown): string {
  const found = (error as { error?: unknown; code?: unknown; cause?: { code?: unknown } }) ?? {};
  const code = typeof found.error === 'string'
    ? found.error
    : typeof found.code === 'string'
    ? found.code
    : typeof found.cause?.code === 'string'
    ? found.cause.code
    : error instanceof Error
    ? error.name
    : 'unknown';
  return /^[A-Za-z0-9_.-]{1,60}$/.test(code) ? code : 'unknown';
}
