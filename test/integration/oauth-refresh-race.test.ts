/**
 * Two dispatchers refreshing one OAuth connection at once: two processes
 * (test/fixtures/refresh-racer.ts, each a dispatcher's collectionCredentials as bins/dispatcher/main.ts wires it)
 * over one SQLite document store and one db secret store, against the local OpenID provider with refresh tokens
 * rotated at every refresh (a used one refused and its grant revoked, as providers with rotation do). The
 * connection's access token is expired and both resolve it at once; the provider holds the token requests until
 * both processes have either sent a refresh or found the refresh lease held, then answers them one at a time. Only
 * one refresh reaches the provider, both get the same new access token, which the service accepts, and the
 * connection stays connected, round after round (each round refreshes with the refresh token the last one stored).
 *
 * Source: docs/decisions.md D22 §§ 8, 10; core/collection/oauth-refresh.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/index.ts';
import { openSecretStore } from '../../core/boot/secret-store.ts';
import { saveConnection } from '../../core/collection/connections.ts';
import { type CollectionApp, connectionId, credentialIdOf } from '../../core/collection/index.ts';
import { connectionsOf } from '../../core/collection/records.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import type { SecretStore } from '../../core/ports/secret-store.ts';
import type { RacerSettings } from '../fixtures/refresh-racer.ts';
import { startCredentialService, type CredentialService } from '../helpers/credential-service.ts';
import { startOidcProvider, type RunningOidcProvider } from '../helpers/oidc-provider.ts';
import { bunPath, repoRoot } from '../helpers/product.ts';
import { consentAt, send } from '../helpers/provider-browser.ts';

const redirectUri = 'http://127.0.0.1:9/api/oauth2/callback';
const office = { clientId: 'office-app', secret: 'office-secret-1', redirectUris: [redirectUri] };
const orgId = 'org-acme';

let provider: RunningOidcProvider;
let ca: string;
let service: CredentialService;
let dir: string;
let docs: DocumentStore;
let secrets: SecretStore;
const racers: Racer[] = [];

/** A racer process and what it printed, line by line (JSON parsed). */
interface Racer {
  child: ChildProcess;
  lines: Array<Record<string, any>>;
  output(): string;
}

/** Waits (polling every 20 ms, at most 60 s) until `done()`; throws with `what` and the racers' output otherwise. */
async function until(what: string, done: () => boolean): Promise<void> {
  for (let i = 0; i < 3_000 && !done(); i += 1) await new Promise((r) => setTimeout(r, 20));
  if (!done()) throw new Error(`${what} did not happen:\n${racers.map((r) => r.output()).join('\n---\n')}`);
}

function startRacer(owner: string, settings: RacerSettings): Promise<Racer> {
  const program = join(repoRoot, 'test/fixtures/refresh-racer.ts');
  const child = spawn(bunPath, [program, join(dir, 'docdb.sqlite'), owner, JSON.stringify(settings)], {
    cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: dir, NODE_EXTRA_CA_CERTS: provider.certificateFile! },
  });
  let printed = '';
  const racer: Racer = { child, lines: [], output: () => printed };
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
    partial += chunk.toString();
    const complete = partial.split('\n');
    partial = complete.pop()!;
    for (const line of complete) {
      racer.lines.push(line.startsWith('{') ? JSON.parse(line) as Record<string, any> : { text: line });
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => { printed += chunk.toString(); });
  racers.push(racer);
  return until(`racer ${owner} start`, () => racer.lines.some((l) => l.text === 'ready')).then(() => racer);
}

/** Signs Ada in through the office app (PKCE, consent) and stores the connection as a finished Connect does. */
async function connect(app: CollectionApp): Promise<void> {
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${provider.issuer}/auth`);
  authorize.search = new URLSearchParams({
    client_id: office.clientId, response_type: 'code', redirect_uri: redirectUri, scope: 'openid', state: 's-1',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
  }).toString();
  const { callback } = await consentAt(provider.issuer, ca, authorize.href, 'ada');
  const code = new URL(callback).searchParams.get('code')!;
  const exchange = await send(`${provider.issuer}/token`, ca, {
    method: 'POST',
    headers: {
      authorization: `Basic ${btoa(`${office.clientId}:${office.secret}`)}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier,
    }).toString(),
  });
  const tokens = JSON.parse(exchange.body) as { access_token: string; refresh_token: string };
  expect(tokens.refresh_token, exchange.body).toBeTruthy();
  const stored = { accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
  await secrets.put(credentialIdOf(orgId, 'office'), stored);
  const deps = { docs, clock: systemClock } as Parameters<typeof saveConnection>[0];
  const target = { orgId, collection: 'office', connectedBy: { memberId: 'm-ada', name: 'Ada' } };
  await saveConnection(deps, target, {
    kind: 'oauth', appId: app.appId, clientId: app.clientId, expiresAt: new Date(),
  });
}

/** Who the credential service says `token` stands for. */
async function whoami(token: string): Promise<unknown> {
  const client = new Client({ name: 'refresh-race', version: '1.0.0' });
  const requestInit = { headers: { authorization: `Bearer ${token}` } };
  await client.connect(new StreamableHTTPClientTransport(new URL(service.endpoint), { requestInit }));
  try {
    return (await client.callTool({ name: 'whoami', arguments: {} })).structuredContent;
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  provider = await startOidcProvider([], 'https://api.cairn.test', {
    https: true, people: [{ login: 'ada', email: 'ada@example.com' }], appClients: [office],
    rotateAppRefreshTokens: true,
  });
  ca = readFileSync(provider.certificateFile!, 'utf8');
  service = await startCredentialService({ jwtIssuer: provider.issuer, ca });
  dir = mkdtempSync(join(tmpdir(), 'cairn-refresh-race-'));
  docs = await openSqliteDocumentStore({ path: join(dir, 'docdb.sqlite') });
  const masterKey = randomBytes(32);
  const stores = { docs, clock: systemClock, ids: cryptoIds };
  secrets = openSecretStore({ kind: 'db', masterKey: new Uint8Array(masterKey) }, stores);
  const app: CollectionApp = {
    appId: 'office', clientId: office.clientId, clientSecret: office.secret, collections: ['office'],
    issuer: provider.issuer, scopes: ['openid'], hasProvider: true,
  };
  await connect(app);
  const settings: RacerSettings = { masterKey: masterKey.toString('base64'), app, orgId, collection: 'office' };
  await Promise.all([startRacer('dispatcher@one', settings), startRacer('dispatcher@two', settings)]);
}, 120_000);

afterAll(async () => {
  for (const racer of racers) {
    racer.child.stdin!.end();
    if (racer.child.exitCode === null) await new Promise((r) => racer.child.once('exit', r));
  }
  await docs?.close();
  await service?.close();
  await provider?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('two dispatchers refreshing one connection at once', () => {
  it.each([1, 2, 3])('leave it connected with one refresh, both carrying its new access token (round %i)', async () => {
    const id = connectionId(orgId, 'office');
    // The access token expired: both see it due.
    const expired = new Date(systemClock.now().getTime() - 1_000);
    await connectionsOf(docs).updateOne({ _id: id }, { $set: { expiresAt: expired } });
    const before = await secrets.get(credentialIdOf(orgId, 'office'));
    const seen = racers.map((r) => r.lines.length);
    const since = (i: number) => racers[i]!.lines.slice(seen[i]);
    const held = provider.holdTokenRequests();
    let refreshesAtProvider = 0;
    try {
      for (const racer of racers) racer.child.stdin!.write('go\n');
      // Each has either sent its refresh (held at the provider) or found the refresh lease held by the other.
      const reached = (i: number) => since(i).some((l) => l.refreshSent || l.leaseBusy);
      await until('both racers reaching the refresh', () => reached(0) && reached(1));
      const sent = () => [0, 1].filter((i) => since(i).some((l) => l.refreshSent)).length;
      await until('the refreshes sent reaching the provider', () => held.arrived() === sent());
      // Answered one at a time: a second refresh sends the refresh token the first one just rotated.
      for (let answered = 0; answered < held.arrived(); answered += 1) await held.answerOne();
      await until('both credentials', () => [0, 1].every((i) => since(i).some((l) => l.credential)));
      refreshesAtProvider = held.arrived();
    } finally {
      held.end();
    }
    const [first, second] = [0, 1].map((i) => since(i).find((l) => l.credential)!.credential);
    const record = await connectionsOf(docs).findOne({ _id: id });
    expect(record, racers.map((r) => r.output()).join('\n---\n')).toMatchObject({ status: 'connected' });
    expect(record!.expiresAt!.getTime()).toBeGreaterThan(systemClock.now().getTime());
    const stored = await secrets.get(credentialIdOf(orgId, 'office'));
    expect(stored!.refreshToken).not.toBe(before!.refreshToken);
    expect(first).toEqual({ kind: 'own', token: stored!.accessToken });
    expect(second).toEqual(first);
    expect(await whoami(stored!.accessToken!)).toEqual({ who: 'office-app:ada' });
    expect(refreshesAtProvider).toBe(1);
  }, 90_000);
});
