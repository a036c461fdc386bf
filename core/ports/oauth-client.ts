/**
 * OAuth client port: the authorization-code flow with PKCE and state that signs an organization in to a collection
 * through a collection OAuth app, the refresh of its tokens, and their revocation. The adapter
 * (core/adapters/oauth) speaks OAuth 2.0 to the app's provider; the domain (core/collection) keeps state, verifier
 * and tokens.
 *
 * Source: spec/platform-service.md § Rules 17 (collection OAuth apps); docs/decisions.md D22 § 4.
 */

/** The app as the client needs it: its ids, secret and provider (from the resolved config, read at boot). */
export interface OAuthAppClient {
  /** The oauthApps entry's id. */
  appId: string;
  clientId: string;
  clientSecret: string;
  /** The provider's discovery issuer, or its endpoints; https. */
  issuer?: string;
  authorizationUrl?: string;
  tokenUrl?: string;
  revocationUrl?: string;
  /** Scopes asked at Connect; default none. */
  scopes: string[];
}

/** Tokens the provider issued. */
export interface OAuthTokens {
  accessToken: string;
  /** Absent when the provider issued none (the connection then lasts as long as its access token). */
  refreshToken?: string;
  /** When the access token expires; absent when the provider did not say. */
  expiresAt?: Date;
  /** The scopes granted, space-separated, when the provider said. */
  scope?: string;
}

/** One authorization request. */
export interface AuthorizationRequest {
  /** OAUTH2_REDIRECT_URL. */
  redirectUri: string;
  /** Opaque random value bound to the connect in progress. */
  state: string;
  /** The S256 challenge of the connect's code verifier. */
  codeChallenge: string;
}

/** The provider's answer at the callback. */
export interface AuthorizationAnswer {
  /** The callback's query as the provider sent it (code, state and iss, or error). */
  query: Record<string, string>;
  /** OAUTH2_REDIRECT_URL (the callback URL is it with `query`). */
  redirectUri: string;
  state: string;
  codeVerifier: string;
}

/**
 * OAuth 2.0 against a collection app's provider.
 *
 * Errors (PlatformError): `oauth_grant_invalid` (status 400) when the provider refuses a code or refresh token as
 * invalid, expired or revoked (the connection must be made again); `oauth_denied` (400) when the person or provider
 * refused at the authorization endpoint; `oauth_provider_failed` (502) for any other failure (unreachable, a bad
 * answer, a refused client), its message naming the provider's error code only, never a token or secret.
 */
export interface OAuthClient {
  /** The provider's authorization URL for `request` (response_type code, S256 PKCE, state, the app's scopes). */
  authorizationUrl(app: OAuthAppClient, request: AuthorizationRequest): Promise<string>;
  /** Checks the callback's state and exchanges its code (with the verifier) for tokens. */
  exchangeCode(app: OAuthAppClient, answer: AuthorizationAnswer): Promise<OAuthTokens>;
  /** New tokens for `refreshToken` (the refresh token kept when the provider issues none). */
  refresh(app: OAuthAppClient, refreshToken: string): Promise<OAuthTokens>;
  /** Revokes `token` at the provider; a provider with no revocation endpoint is a no-op (resolves false). */
  revoke(app: OAuthAppClient, token: string): Promise<boolean>;
  /** A fresh S256 code verifier with its challenge, and a fresh state (each at least 128 bits of randomness). */
  pkce(): Promise<PkcePair>;
}

/** S256 PKCE: a code verifier and its challenge, and a state value. */
export interface PkcePair {
  codeVerifier: string;
  codeChallenge: string;
  state: string;
}
