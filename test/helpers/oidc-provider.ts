/**
 * A real OpenID provider (the `oidc-provider` package) on 127.0.0.1 for one test file: discovery, JWKS,
 * a token endpoint issuing JWT access tokens (client credentials, resource indicators) and end-session.
 * Each client stands for one person: its email claims ride on its access tokens (as Keycloak- or Okta-style
 * providers put them there).
 *
 * Source: ../shared/TOOLCHAIN.md § Libraries (OIDC); ../shared/ARCHITECTURE.md § Ports, adapters, contracts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import Provider from 'oidc-provider';

/** One client of the provider and the person it stands for. */
export interface TestClient {
  clientId: string;
  secret: string;
  /** Identity claims put on its access tokens; omit `email` to issue tokens without one. */
  email?: string;
  emailVerified?: boolean;
  name?: string;
}

/** A running provider. */
export interface RunningOidcProvider {
  /** Issuer exactly as the discovery document names it (no trailing slash). */
  issuer: string;
  /** Resource (audience) tokens get when none is asked for. */
  defaultResource: string;
  /** A client-credentials access token (JWT) from the token endpoint; `resource` picks the audience; a resource ending in `/short-lived` gets a 1 s lifetime. */
  clientCredentialsToken(clientId: string, options?: { resource?: string }): Promise<string>;
  /** Signs `claims` with the provider's own signing key and kid, for token shapes the provider does not issue (no aud, azp). */
  signWithProviderKey(claims: JWTPayload): Promise<string>;
  stop(): Promise<void>;
}

/** Starts the provider on a random loopback port. */
export async function startOidcProvider(clients: TestClient[], defaultResource = 'https://api.cairn.test'): Promise<RunningOidcProvider> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const byId = new Map(clients.map((c) => [c.clientId, c]));
  const provider = new Provider(issuer, providerConfiguration(jwk, byId, defaultResource));
  handler = provider.callback();
  return {
    issuer,
    defaultResource,
    async clientCredentialsToken(clientId, options = {}) {
      const client = byId.get(clientId);
      if (!client) throw new Error(`unknown test client ${clientId}`);
      const body = new URLSearchParams({ grant_type: 'client_credentials', scope: 'api', ...(options.resource ? { resource: options.resource } : {}) });
      const response = await fetch(`${issuer}/token`, { method: 'POST', body, headers: { authorization: `Basic ${btoa(`${client.clientId}:${client.secret}`)}` } });
      const answer = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!answer.access_token) throw new Error(`token endpoint refused: ${answer.error} ${answer.error_description}`);
      return answer.access_token;
    },
    signWithProviderKey: (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: jwk.kid, typ: 'at+jwt' }).sign(privateKey),
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

function providerConfiguration(jwk: Record<string, unknown>, byId: Map<string, TestClient>, defaultResource: string): Record<string, unknown> {
  return {
    jwks: { keys: [jwk] },
    clients: [...byId.values()].map((c) => ({ client_id: c.clientId, client_secret: c.secret, grant_types: ['client_credentials'], redirect_uris: [], response_types: [] })),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => defaultResource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resource: string) => ({
          scope: 'api', audience: resource, accessTokenFormat: 'jwt', accessTokenTTL: resource.endsWith('/short-lived') ? 1 : 600, jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    ttl: { ClientCredentials: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) => token.resourceServer?.accessTokenTTL ?? 600 },
    extraTokenClaims: async (_ctx: unknown, token: { clientId?: string }) => identityClaims(byId.get(token.clientId ?? '')),
  };
}

function identityClaims(client: TestClient | undefined): Record<string, unknown> | undefined {
  if (!client?.email) return undefined;
  return { email: client.email, email_verified: client.emailVerified ?? true, ...(client.name ? { name: client.name } : {}) };
}

/** Three people the role tests sign in as: Ada, Bob and Cy (client credentials of the test provider). */
export const threePeople: TestClient[] = [
  { clientId: 'ada', secret: 'ada-secret-value-1', email: 'ada@example.com', name: 'Ada' },
  { clientId: 'bob', secret: 'bob-secret-value-1', email: 'bob@example.com', name: 'Bob' },
  { clientId: 'cy', secret: 'cy-secret-value-11', email: 'cy@example.com', name: 'Cy' },
];

/** The environment of a product or API signing in against `provider` (PLATFORM_SIGN_IN=oidc, its issuer and audience). */
export function oidcSignInEnv(provider: RunningOidcProvider): Record<string, string> {
  return { PLATFORM_SIGN_IN: 'oidc', PLATFORM_OIDC_ISSUER: provider.issuer, PLATFORM_OIDC_CLIENT_ID: 'cairn-web', PLATFORM_OIDC_AUDIENCE: provider.defaultResource };
}

/** An access token for each of `people`, by client id. */
export async function tokensOf(provider: RunningOidcProvider, people: TestClient[] = threePeople): Promise<Record<string, string>> {
  return Object.fromEntries(await Promise.all(people.map(async (p) => [p.clientId, await provider.clientCredentialsToken(p.clientId)] as const)));
}
