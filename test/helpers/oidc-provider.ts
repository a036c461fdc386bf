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
 * App clients ({@link AppClient}): confidential authorization-code clients (client_secret_basic; oidc-provider
 * accepts client_secret_post from them as well) a product uses to sign an organization in to a tool collection.
 * They are asked for consent at the provider's own consent page, get refresh tokens without asking offline_access
 * (not bound to the provider's session; never rotated unless `rotateAppRefreshTokens`, then rotated at every refresh
 * with a used one refused and its grant revoked) and JWT access tokens for the default resource. They live
 * in a mutable map read by the provider's adapter, so a secret change or a new client takes effect at the next
 * request. Revocation and introspection are enabled.
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

/** A confidential authorization-code client of a product (a collection's OAuth app); authenticates with client_secret_basic. */
export interface AppClient {
  clientId: string;
  secret: string;
  redirectUris: string[];
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
  /** Confidential authorization-code clients (collection OAuth apps): consent asked, refresh tokens issued. */
  appClients?: AppClient[];
  /** Lifetime in seconds of access tokens issued to app clients; default 600. */
  appAccessTokenTtlSeconds?: number;
  /**
   * Rotate app clients' refresh tokens at every refresh, as providers with rotation do: a used refresh token is then
   * refused (`invalid_grant`) and its whole grant revoked (oidc-provider's reuse detection). Default false.
   */
  rotateAppRefreshTokens?: boolean;
}

/** Token endpoint requests held by {@link RunningOidcProvider.holdTokenRequests}, answered one at a time. */
export interface HeldTokenRequests {
  /** How many token requests arrived since the hold began. */
  arrived(): number;
  /** Answers the earliest request still held; resolves once its answer was sent. @throws when none is held */
  answerOne(): Promise<void>;
  /** Stops holding: the requests still held are answered, later ones at once. */
  end(): void;
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
  /** Replaces an app client's secret (the old one stops working at once), as an operator rotating it at the provider. */
  setAppClientSecret(clientId: string, secret: string): void;
  /** Registers another app client at runtime (e.g. a new client id for the same app). */
  addAppClient(client: AppClient): void;
  /** Asks the token endpoint to refresh with `refreshToken` as `clientId`/`secret` (client_secret_basic); answers the token endpoint's JSON (access_token... or error). */
  refreshWith(client: { clientId: string; secret: string }, refreshToken: string): Promise<Record<string, unknown>>;
  /** Every access token issued to app clients so far (token endpoint answers, in order), with its client id and account (subject). */
  issuedAppTokens(): Array<{ clientId: string; accountId: string; accessToken?: string }>;
  /** Holds every token endpoint request (POST /token) until the test answers it, to order concurrent refreshes. */
  holdTokenRequests(): HeldTokenRequests;
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
  const apps: AppClients = { byId: new Map((options.appClients ?? []).map((c) => [c.clientId, { ...c, redirectUris: [...c.redirectUris] }])), ttl: options.appAccessTokenTtlSeconds ?? 600, rotate: options.rotateAppRefreshTokens ?? false };
  // Static clients win over the adapter's: an app client may not reuse their ids.
  const staticIds = new Set([...byId.keys(), ...(options.webClient ? [options.webClient.clientId ?? 'cairn-web'] : [])]);
  const clash = [...apps.byId.keys()].find((id) => staticIds.has(id));
  if (clash) throw new Error(`app client ${clash} has the id of another client`);
  const provider = new Provider(issuer, providerConfiguration(jwk, byId, defaultResource, people, options.webClient, apps));
  const issued: Array<{ clientId: string; accountId: string; accessToken?: string }> = [];
  // After every token endpoint success (code and refresh grants): what it answered an app client.
  (provider as unknown as { on(event: string, listener: (ctx: TokenContext) => void): void }).on('grant.success', (ctx) => {
    const clientId = ctx.oidc.client?.clientId ?? '';
    const token = ctx.oidc.entities.AccessToken;
    if (apps.byId.has(clientId) && token) issued.push({ clientId, accountId: token.accountId ?? '', accessToken: ctx.body?.access_token });
  });
  const callback = provider.callback();
  let held: { queue: Array<() => Promise<void>>; arrived: number } | undefined;
  const answer = (req: IncomingMessage, res: ServerResponse) => new Promise<void>((resolve) => {
    res.once('close', () => resolve());
    callback(req, res);
  });
  handler = (req, res) => {
    if (held && req.method === 'POST' && req.url === '/token') {
      held.arrived += 1;
      held.queue.push(() => answer(req, res));
    } else if (req.url?.startsWith('/interaction/')) void interaction(provider, people, defaultResource, req, res).catch((error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(error.message));
    else callback(req, res);
  };
  const tokenRequest = async (body: URLSearchParams, clientId: string, secret: string): Promise<Record<string, unknown>> => JSON.parse(await post(`${issuer}/token`, body.toString(), {
    authorization: `Basic ${btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`)}`, 'content-type': 'application/x-www-form-urlencoded',
  }, tls?.cert)) as Record<string, unknown>;
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
    setAppClientSecret(clientId, secret) {
      const client = apps.byId.get(clientId);
      if (!client) throw new Error(`unknown app client ${clientId}`);
      client.secret = secret;
    },
    addAppClient(client) {
      if (apps.byId.has(client.clientId) || staticIds.has(client.clientId)) throw new Error(`client ${client.clientId} exists`);
      apps.byId.set(client.clientId, { ...client, redirectUris: [...client.redirectUris] });
    },
    refreshWith: (client, refreshToken) => tokenRequest(new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }), client.clientId, client.secret),
    issuedAppTokens: () => issued.map((t) => ({ ...t })),
    holdTokenRequests() {
      const hold = { queue: [] as Array<() => Promise<void>>, arrived: 0 };
      held = hold;
      return {
        arrived: () => hold.arrived,
        answerOne: () => {
          const next = hold.queue.shift();
          if (!next) throw new Error('no token request is held');
          return next();
        },
        end: () => {
          if (held === hold) held = undefined;
          for (const next of hold.queue.splice(0)) void next();
        },
      };
    },
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
 * login as the person of that login (any password), or shows the form again with "Unknown login". The web
 * client is never asked for consent ({@link providerConfiguration}'s loadExistingGrant grants it at once); an
 * app client is: the consent page ("Authorize <client id>", the scopes asked, one "Allow" button) posts
 * `allow=yes`, which saves a grant of the OIDC scopes and claims asked and the resource scope `api`.
 */
async function interaction(provider: Provider, people: Map<string, TestPerson>, defaultResource: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res) as InteractionDetails;
  const html = (title: string, main: string): void => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title></head>
<body><main>${main}</main></body></html>`);
  const page = (message: string): void => html('Test provider sign-in', `<h1>Test provider sign-in</h1>${message ? `<p role="alert">${message}</p>` : ''}
<form method="post" action="/interaction/${details.uid}">
<label>Login <input name="login" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button></form>`);
  const clientId = String(details.params.client_id ?? '');
  const scope = typeof details.params.scope === 'string' ? details.params.scope : '';
  const consentPage = (): void => html(`Authorize ${escapeHtml(clientId)}`, `<h1>Authorize ${escapeHtml(clientId)}</h1>
<p>${escapeHtml(clientId)} asks for: <span id="scopes">${escapeHtml(scope)}</span></p>
<form method="post" action="/interaction/${details.uid}"><button type="submit" name="allow" value="yes">Allow</button></form>`);
  if (req.method !== 'POST') return details.prompt.name === 'consent' ? consentPage() : page('');
  const form = new URLSearchParams(await new Promise<string>((resolve) => { let t = ''; req.on('data', (c: Buffer) => { t += c.toString(); }); req.on('end', () => resolve(t)); }));
  if (details.prompt.name === 'consent') {
    if (form.get('allow') !== 'yes') return consentPage();
    const { Grant } = provider as unknown as { Grant: GrantClass };
    const grant = details.grantId ? await Grant.find(details.grantId) : new Grant({ clientId, accountId: details.session?.accountId ?? '' });
    if (!grant) throw new Error('grant of the interaction not found');
    const asked = details.prompt.details ?? {};
    const oidcScopes = [...new Set([...(asked.missingOIDCScope ?? []), ...scope.split(' ').filter((s) => s && s !== 'api')])];
    if (oidcScopes.length) grant.addOIDCScope(oidcScopes.join(' '));
    if (asked.missingOIDCClaims?.length) grant.addOIDCClaims(asked.missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(asked.missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '));
    const resource = details.params.resource;
    for (const r of Array.isArray(resource) ? resource.map(String) : [typeof resource === 'string' ? resource : defaultResource]) grant.addResourceScope(r, 'api');
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    return;
  }
  const login = form.get('login') ?? '';
  if (!people.has(login)) return page('Unknown login');
  await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What the login and consent pages read of an interaction (oidc-provider's Interaction). */
interface InteractionDetails {
  uid: string;
  prompt: { name: string; details?: { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> } };
  params: Record<string, unknown>;
  grantId?: string;
  session?: { accountId: string };
}

/** The app clients of a provider, read by its adapter at every request, and their access tokens' lifetime. */
interface AppClients {
  byId: Map<string, AppClient>;
  ttl: number;
  /** Rotate their refresh tokens at every refresh. */
  rotate: boolean;
}

/** An app client's metadata as oidc-provider reads it from the adapter. */
function appClientMetadata(client: AppClient): Record<string, unknown> {
  return {
    client_id: client.clientId, client_secret: client.secret, token_endpoint_auth_method: 'client_secret_basic', application_type: 'web',
    grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], redirect_uris: [...client.redirectUris],
  };
}

/**
 * The provider's storage (one per provider, in memory), as oidc-provider's own development MemoryAdapter keeps
 * it, except that model `Client` answers the app clients' current metadata: oidc-provider caches static
 * clients (configuration `clients`) for good once read, but looks an adapter client up at every request and
 * rebuilds it whenever its metadata changes (its cache is keyed by a hash of the metadata).
 */
class TestAdapter {
  constructor(private readonly model: string, private readonly store: TestStore, private readonly apps: AppClients) {}

  private key(id: string): string { return `${this.model}:${id}`; }

  async find(id: string): Promise<Record<string, unknown> | undefined> {
    if (this.model === 'Client') {
      const client = this.apps.byId.get(id);
      return client ? appClientMetadata(client) : undefined;
    }
    return this.store.get(this.key(id));
  }

  async findByUid(uid: string): Promise<Record<string, unknown> | undefined> {
    const id = this.store.index.get(`sessionUid:${uid}`);
    return id === undefined ? undefined : this.find(id);
  }

  async findByUserCode(userCode: string): Promise<Record<string, unknown> | undefined> {
    const id = this.store.index.get(`userCode:${userCode}`);
    return id === undefined ? undefined : this.find(id);
  }

  async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void> {
    if (this.model === 'Client') return; // dynamic registration is off; app clients change through the running provider only
    const key = this.key(id);
    this.store.entries.set(key, { payload, expiresAt: typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : Infinity });
    if (this.model === 'Session' && typeof payload.uid === 'string') this.store.index.set(`sessionUid:${payload.uid}`, id);
    if (typeof payload.userCode === 'string') this.store.index.set(`userCode:${payload.userCode}`, id);
    if (typeof payload.grantId === 'string' && grantable.has(this.model)) {
      const members = this.store.grants.get(payload.grantId) ?? new Set<string>();
      this.store.grants.set(payload.grantId, members.add(key));
    }
  }

  async consume(id: string): Promise<void> {
    const payload = this.store.get(this.key(id));
    if (payload) payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id: string): Promise<void> {
    this.store.entries.delete(this.key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    for (const key of this.store.grants.get(grantId) ?? []) this.store.entries.delete(key);
    this.store.grants.delete(grantId);
  }
}

/** The models whose records belong to a grant (revoked with it). */
const grantable = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest', 'PreAuthorizedCode']);

class TestStore {
  readonly entries = new Map<string, { payload: Record<string, unknown>; expiresAt: number }>();
  /** Session uid and user code → id. */
  readonly index = new Map<string, string>();
  /** Grant id → keys of its tokens. */
  readonly grants = new Map<string, Set<string>>();

  get(key: string): Record<string, unknown> | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) this.entries.delete(key);
    return entry && entry.expiresAt > Date.now() ? entry.payload : undefined;
  }
}

function providerConfiguration(jwk: Record<string, unknown>, byId: Map<string, TestClient>, defaultResource: string, people: Map<string, TestPerson>,
  webClient: OidcProviderOptions['webClient'] | undefined, apps: AppClients): Record<string, unknown> {
  const webClientId = webClient ? webClient.clientId ?? 'cairn-web' : undefined;
  const isApp = (clientId: string | undefined): boolean => clientId !== undefined && apps.byId.has(clientId);
  const store = new TestStore();
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
    adapter: (model: string) => new TestAdapter(model, store, apps),
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
      revocation: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => defaultResource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resource: string, client?: { clientId: string }) => ({
          scope: 'api', audience: resource, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } },
          accessTokenTTL: isApp(client?.clientId) ? apps.ttl : resource.endsWith('/short-lived') ? 1 : 600,
        }),
      },
    },
    ttl: { ClientCredentials: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) => token.resourceServer?.accessTokenTTL ?? 600 },
    extraTokenClaims: async (_ctx: unknown, token: { clientId?: string; accountId?: string }) => {
      const person = token.accountId ? people.get(token.accountId) : undefined;
      return person ? personClaims(person) : identityClaims(byId.get(token.clientId ?? ''));
    },
    clientBasedCORS: (_ctx: unknown, origin: string) => webClient?.origins.includes(origin) ?? false,
    // App clients get a refresh token without asking offline_access, not bound to the provider's session, and never
    // rotated unless the provider was started with rotateAppRefreshTokens.
    issueRefreshToken: async (_ctx: unknown, client: { clientId: string; grantTypeAllowed(type: string): boolean }, source: { scopes: Set<string> }) =>
      client.grantTypeAllowed('refresh_token') && (isApp(client.clientId) || source.scopes.has('offline_access')),
    expiresWithSession: async (ctx: ClientContext, source: { scopes: Set<string> }) => !isApp(ctx.oidc.client.clientId) && !source.scopes.has('offline_access'),
    rotateRefreshToken: (ctx: RotationContext) => {
      const { RefreshToken: refreshToken, Client: client } = ctx.oidc.entities;
      if (isApp(client.clientId)) return apps.rotate;
      // oidc-provider's default for every other client.
      if (refreshToken.totalLifetime() >= 365.25 * 24 * 60 * 60) return false;
      if (client.clientAuthMethod === 'none' && !refreshToken.isSenderConstrained()) return true;
      return refreshToken.ttlPercentagePassed() >= 70;
    },
    pkce: { required: () => true },
  };
}

interface ClientContext {
  oidc: { client: { clientId: string } };
}
interface RotationContext {
  oidc: { entities: {
    Client: { clientId: string; clientAuthMethod: string };
    RefreshToken: { totalLifetime(): number; isSenderConstrained(): boolean; ttlPercentagePassed(): number };
  } };
}
/** The slice of the token endpoint's context the `grant.success` listener reads. */
interface TokenContext {
  oidc: { client?: { clientId: string }; entities: { AccessToken?: { accountId?: string } } };
  body?: { access_token?: string };
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
  new (init: { clientId: string; accountId: string }): GrantInstance;
  find(id: string): Promise<GrantInstance | undefined>;
}
interface GrantInstance { addOIDCScope(scope: string): void; addOIDCClaims(claims: string[]): void; addResourceScope(resource: string, scope: string): void; save(): Promise<string> }

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
