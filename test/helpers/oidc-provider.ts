/**
 * A real OpenID provider (the `oidc-provider` package) on 127.0.0.1 for one test file: discovery, JWKS,
 * a token endpoint issuing JWT access tokens (client credentials, resource indicators) and end-session.
 * Each client stands for one person: its email claims ride on its access tokens (as Keycloak- or Okta-style
 * providers put them there).
 *
 * For browser tests ({@link OidcProviderOptions}): served over HTTPS with a self-signed certificate made at
 * start (the product's CSP lets the browser reach other origins over https: only), a public
 * authorization-code client with PKCE for the web app (redirects to the app's `/` and `/silent-callback.html`,
 * RP-initiated logout back to the app), a minimal login page of its own, people whose email claims ride on
 * their ID tokens and on their JWT access tokens for the requested resource, and session cookies that are
 * `SameSite=None; Secure` so the hidden-frame restore of a cross-site app receives them.
 *
 * Source: ../shared/TOOLCHAIN.md § Libraries (OIDC); docs/architecture.md § Ports and adapters.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** A person who signs in at the provider's login page (browser tests). */
export interface TestPerson {
  /** What is typed into the login page's "Login" field; also the subject (`sub`). */
  login: string;
  email: string;
  /** Default true. */
  emailVerified?: boolean;
  name?: string;
  /** More claims on their tokens, e.g. the managed-domain claim `{ managed_domain: 'example.com' }`. */
  claims?: Record<string, unknown>;
}

/** What a browser test adds to the provider. */
export interface OidcProviderOptions {
  /** Serve over https://127.0.0.1 with a self-signed certificate (IP SAN 127.0.0.1) made at start; default http. */
  https?: boolean;
  /**
   * A public authorization-code client (PKCE, no secret) for the web app served at each of `origins`
   * (`http://127.0.0.1:<port>`): redirect URIs `<origin>/` and `<origin>/silent-callback.html`, post-logout
   * redirect `<origin>/`. Its client id defaults to `cairn-web` (what {@link oidcSignInEnv} names).
   */
  webClient?: { clientId?: string; origins: string[] };
  /** Who can sign in at the login page (any password is accepted). */
  people?: TestPerson[];
}

/** A running provider. */
export interface RunningOidcProvider {
  /** Issuer exactly as the discovery document names it (no trailing slash). */
  issuer: string;
  /** With `https`: the PEM file of the self-signed certificate (give it to Bun or Node as NODE_EXTRA_CA_CERTS). */
  certificateFile?: string;
  /** Resource (audience) tokens get when none is asked for. */
  defaultResource: string;
  /** A client-credentials access token (JWT) from the token endpoint; `resource` picks the audience; a resource ending in `/short-lived` gets a 1 s lifetime. */
  clientCredentialsToken(clientId: string, options?: { resource?: string }): Promise<string>;
  /** Signs `claims` with the provider's own signing key and kid, for token shapes the provider does not issue (no aud, azp). */
  signWithProviderKey(claims: JWTPayload): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts the provider on a random loopback port.
 * @param defaultResource - the audience of tokens that name no resource
 * @param options - https, the web app's client and the people of the login page (browser tests)
 */
export async function startOidcProvider(clients: TestClient[], defaultResource = 'https://api.cairn.test', options: OidcProviderOptions = {}): Promise<RunningOidcProvider> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const tls = options.https ? selfSignedCertificate() : undefined;
  const server: Server = tls
    ? createHttpsServer({ key: tls.key, cert: tls.cert }, (req, res) => handler(req, res))
    : createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const byId = new Map(clients.map((c) => [c.clientId, c]));
  const people = new Map((options.people ?? []).map((p) => [p.login, p]));
  const provider = new Provider(issuer, providerConfiguration(jwk, byId, defaultResource, people, options.webClient));
  const callback = provider.callback();
  handler = (req, res) => {
    if (req.url?.startsWith('/interaction/')) void interaction(provider, people, req, res).catch((error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(error.message));
    else callback(req, res);
  };
  return {
    issuer,
    ...(tls ? { certificateFile: tls.file } : {}),
    defaultResource,
    async clientCredentialsToken(clientId, options = {}) {
      const client = byId.get(clientId);
      if (!client) throw new Error(`unknown test client ${clientId}`);
      const body = new URLSearchParams({ grant_type: 'client_credentials', scope: 'api', ...(options.resource ? { resource: options.resource } : {}) });
      const answer = JSON.parse(await post(`${issuer}/token`, body.toString(), { authorization: `Basic ${btoa(`${client.clientId}:${client.secret}`)}`, 'content-type': 'application/x-www-form-urlencoded' }, tls?.cert)) as { access_token?: string; error?: string; error_description?: string };
      if (!answer.access_token) throw new Error(`token endpoint refused: ${answer.error} ${answer.error_description}`);
      return answer.access_token;
    },
    signWithProviderKey: (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: jwk.kid, typ: 'at+jwt' }).sign(privateKey),
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => { if (tls) rmSync(tls.dir, { recursive: true, force: true }); resolve(); });
    }),
  };
}

/** A key and certificate for 127.0.0.1 (openssl, 1 day), in a temporary directory removed by stop(). */
function selfSignedCertificate(): { key: string; cert: string; file: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-test-oidc-tls-'));
  const keyFile = join(dir, 'key.pem');
  const file = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', file, '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-addext', 'basicConstraints=critical,CA:TRUE'], { stdio: 'ignore' });
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(file, 'utf8'), file, dir };
}

/** POSTs `body` and answers the response text (node:http(s), trusting `ca` when given). */
function post(url: string, body: string, headers: Record<string, string>, ca?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = send(url, { method: 'POST', headers, ...(ca ? { ca } : {}) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The login page: GET /interaction/<uid> shows a form (Login, Password, "Sign in"); its POST finishes the
 * login as the person of that login (any password), or shows the form again with "Unknown login". Consent
 * is never asked ({@link providerConfiguration}'s loadExistingGrant grants the web client at once).
 */
async function interaction(provider: Provider, people: Map<string, TestPerson>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const page = (message: string): void => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Test provider sign-in</title></head>
<body><main><h1>Test provider sign-in</h1>${message ? `<p role="alert">${message}</p>` : ''}
<form method="post" action="/interaction/${details.uid}">
<label>Login <input name="login" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button></form></main></body></html>`);
  if (req.method !== 'POST') return page('');
  const form = new URLSearchParams(await new Promise<string>((resolve) => { let t = ''; req.on('data', (c: Buffer) => { t += c.toString(); }); req.on('end', () => resolve(t)); }));
  const login = form.get('login') ?? '';
  if (!people.has(login)) return page('Unknown login');
  await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
}

function providerConfiguration(jwk: Record<string, unknown>, byId: Map<string, TestClient>, defaultResource: string, people: Map<string, TestPerson>, webClient?: OidcProviderOptions['webClient']): Record<string, unknown> {
  const webClientId = webClient ? webClient.clientId ?? 'cairn-web' : undefined;
  const webClients = webClient ? [{
    client_id: webClientId, token_endpoint_auth_method: 'none', application_type: 'web', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
    redirect_uris: webClient.origins.flatMap((o) => [`${o}/`, `${o}/silent-callback.html`]), post_logout_redirect_uris: webClient.origins.map((o) => `${o}/`),
  }] : [];
  return {
    jwks: { keys: [jwk] },
    clients: [...[...byId.values()].map((c) => ({ client_id: c.clientId, client_secret: c.secret, grant_types: ['client_credentials'], redirect_uris: [], response_types: [] })), ...webClients],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // Email claims in the ID token of the code flow too (as Keycloak, Okta and Auth0 put them there).
    conformIdTokenClaims: false,
    findAccount: (_ctx: unknown, sub: string) => {
      const person = people.get(sub);
      return person ? { accountId: sub, claims: () => ({ sub, ...personClaims(person) }) } : undefined;
    },
    interactions: { url: (_ctx: unknown, details: { uid: string }) => `/interaction/${details.uid}` },
    // The web client is granted what it asks at once: no consent page.
    loadExistingGrant: async (ctx: GrantContext) => {
      const { oidc } = ctx;
      const grantId = oidc.result?.consent?.grantId ?? oidc.session?.grantIdFor(oidc.client.clientId);
      if (grantId) return oidc.provider.Grant.find(grantId);
      if (oidc.client.clientId !== webClientId || !oidc.session?.accountId) return undefined;
      const grant = new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId });
      grant.addOIDCScope('openid email profile');
      grant.addOIDCClaims(['sub', 'email', 'email_verified', 'name']);
      grant.addResourceScope(typeof oidc.params?.resource === 'string' ? oidc.params.resource : defaultResource, 'api');
      await grant.save();
      return grant;
    },
    // Cross-site session cookies: the app (http://127.0.0.1:<port>) restores from a hidden frame of the provider.
    cookies: { long: { httpOnly: true, sameSite: 'none', secure: true }, short: { httpOnly: true, sameSite: 'none', secure: true }, keys: ['test-cookie-key-0123456789'] },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: true, logoutSource: logoutPage },
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
    extraTokenClaims: async (_ctx: unknown, token: { clientId?: string; accountId?: string }) => {
      const person = token.accountId ? people.get(token.accountId) : undefined;
      return person ? personClaims(person) : identityClaims(byId.get(token.clientId ?? ''));
    },
    clientBasedCORS: (_ctx: unknown, origin: string) => webClient?.origins.includes(origin) ?? false,
    pkce: { required: () => true },
  };
}

/** The slice of oidc-provider's request context loadExistingGrant reads. */
interface GrantContext {
  oidc: {
    client: { clientId: string };
    params?: { resource?: unknown };
    result?: { consent?: { grantId?: string } };
    session?: { accountId?: string; grantIdFor(clientId: string): string | undefined };
    provider: { Grant: GrantClass };
  };
}
interface GrantClass {
  new (init: { clientId: string; accountId: string }): { addOIDCScope(scope: string): void; addOIDCClaims(claims: string[]): void; addResourceScope(resource: string, scope: string): void; save(): Promise<string> };
  find(id: string): Promise<unknown>;
}

/** The end-session page: the provider's form (id op.logoutForm) and one "Sign out" button that ends the provider's session too. */
function logoutPage(ctx: { body: string }, form: string): void {
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign out of the test provider</title></head><body><main><h1>Sign out of the test provider</h1>${form}<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button></main></body></html>`;
}

function personClaims(person: TestPerson): Record<string, unknown> {
  return { email: person.email, email_verified: person.emailVerified ?? true, ...(person.name ? { name: person.name } : {}), ...person.claims };
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
