/**
 * The Collections tab of the Members page in a real browser (Debian's Chromium through playwright-core) against the
 * product as `scripts/start` starts it, signing in at the local OpenID provider over https; the same provider is the
 * `office` app's (a confidential client asking consent), and one local MCP service stands behind both configured
 * services (`crm` takes a token, `office` signs in through the app):
 * - Ada, alone on the deployment (her personal organization is its only one), sees crm served by the deployment's
 *   token and office not connected, with the app's reach note, page, and who signs in;
 * - a short token is refused with the API's message; a valid one connects crm (never shown back);
 * - Connect sends her to the provider's consent page; Allow brings her back to the tab, which says "Connected office."
 *   once (the query is removed: a reload does not repeat it); the API lists office connected by her;
 * - an agent of her organization calls office's tool with the organization's access token (the service says whose);
 *   the session's page shows the call;
 * - Disconnect asks first (declining keeps the connection); office is revoked at the provider (the API's
 *   `[credentials]` line says so) and crm falls back to the deployment's token;
 * - once Bob's first sign-in makes a second organization, the deployment's token serves nobody: crm is Not connected;
 *   Bob gets 404 for Ada's organization's collections;
 * - a callback whose state is unknown lands on /members, which passes its error on to the Collections tab;
 * - with the list answer changed on its way to the page: a member without organization:manage sees it read-only, a
 *   connection asked to reconnect offers Reconnect and Disconnect, and a Connect the API refuses shows its message.
 * At 375 px nothing overflows sideways. No console errors or CSP violations on the app's pages. Screenshots land in
 * test-results/web/collections-*.png.
 *
 * Source: spec/platform-service.md § Rules 15, 17, § Endpoints (GET /api/oauth2/callback); docs/decisions.md D22 § 4.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CollectionView } from '../../core/collection/connections.ts';
import type { OrganizationListAnswer } from '../../core/org/api-views.ts';
import { desktop, launchBrowser, newTestPage, phone, screenshot, signInAtProvider, startWebApp, type StartedWebApp } from '../helpers/browser.ts';
import { type CredentialService, startCredentialService } from '../helpers/credential-service.ts';
import { oidcSignInEnv, startOidcProvider, type RunningOidcProvider } from '../helpers/oidc-provider.ts';
import { freePort } from '../helpers/ports.ts';
import { installAgentOverApi } from '../helpers/agent-over-api.ts';
import { repoRoot } from '../helpers/product.ts';
import { scriptedModels, startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { join } from 'node:path';

const DEPLOYMENT_TOKEN = 'deployment-token-0123456789';
const CRM_TOKEN = 'ada-own-crm-token-0123456789';
const NOTE = 'Reads and writes the documents of the person who connects.';

let provider: RunningOidcProvider;
let svc: CredentialService;
let model: ScriptedModelServer;
let product: StartedWebApp;
let browser: Browser;

beforeAll(async () => {
  // The app's origin is the provider's redirect target (web sign-in and the office app's callback): known first.
  const port = await freePort();
  const appBase = `http://127.0.0.1:${port}`;
  provider = await startOidcProvider([
    // Bob signs in over the API only (client credentials standing for him), making a second organization.
    { clientId: 'bob', secret: 'bob-secret-value-1', email: 'bob@example.com', name: 'Bob' },
  ], 'https://api.cairn.test', {
    https: true,
    webClient: { origins: [appBase] },
    people: [{ login: 'ada', email: 'ada@example.com', name: 'Ada Lovelace' }],
    appClients: [{ clientId: 'office-app', secret: 'office-secret-1', redirectUris: [`${appBase}/api/oauth2/callback`] }],
  });
  svc = await startCredentialService({ tokens: { [DEPLOYMENT_TOKEN]: 'deployment' }, jwtIssuer: provider.issuer, ca: readFileSync(provider.certificateFile!, 'utf8') });
  // The caller agent's one turn: office's whoami, then a wait.
  model = await startScriptedModelServer([
    { toolCalls: [{ name: 'office__whoami', arguments: {} }] },
    { text: 'You are Ada, through the office app.', toolCalls: [{ name: 'platform_wait', arguments: { reason: 'next?' } }] },
  ]);
  const config = {
    models: scriptedModels(model),
    services: [
      { id: 'crm', endpoint: svc.endpoint, token: DEPLOYMENT_TOKEN },
      { id: 'office', endpoint: svc.endpoint, token: DEPLOYMENT_TOKEN },
    ],
    oauthApps: [{
      id: 'office', collections: ['office'], clientId: 'office-app', clientSecret: 'office-secret-1',
      provider: { issuer: provider.issuer, scopes: ['openid', 'api'] },
      reach: { note: NOTE, url: 'https://office.example/app', signsIn: 'Organization Administrators' },
    }],
  };
  // scripts/start's entrypoint makes the data directory's own MASTER_KEY (not production).
  [product, browser] = await Promise.all([
    startWebApp({
      ...oidcSignInEnv(provider), NODE_EXTRA_CA_CERTS: provider.certificateFile!, PLATFORM_CONFIG: JSON.stringify(config),
      OAUTH2_REDIRECT_URL: `${appBase}/api/oauth2/callback`,
    }, port),
    // The provider's certificate is self-signed (made at start).
    launchBrowser({ ignoreCertificateErrors: true }),
  ]);
}, 450_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await svc?.close();
  await model?.close();
  await provider?.stop();
});

/** Watches the provider's token answers to `page` and keeps the newest access token (to call the API as that person). */
function accessTokenOf(page: Page): () => string {
  let token = '';
  page.on('response', async (response) => {
    if (response.url() !== `${provider.issuer}/token` || !response.ok()) return;
    token = ((await response.json()) as { access_token?: string }).access_token ?? token;
  });
  return () => token;
}

async function apiAs(token: string, path: string): Promise<Response> {
  return fetch(`${product.base}${path}`, { headers: { authorization: `Bearer ${token}` } });
}

async function collectionsOf(token: string, org: string): Promise<{ collections: CollectionView[]; canManage: boolean }> {
  const response = await apiAs(token, `/api/orgs/${org}/collections`);
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json() as Promise<{ collections: CollectionView[]; canManage: boolean }>;
}

/** Full-page screenshots at 1280 (`collections-<name>-1280`) and 375 px (`-375`); nothing overflows at 375. */
async function shoot(page: Page, name: string): Promise<void> {
  await page.setViewportSize(desktop);
  await screenshot(page, `collections-${name}-1280`, { fullPage: true });
  await page.setViewportSize(phone);
  await screenshot(page, `collections-${name}-375`, { fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, `the page is ${overflow} px wider than 375 px`).toBeLessThanOrEqual(0);
  await page.setViewportSize(desktop);
}

/** Signs Ada in at /members; her access token (kept fresh) and her organization's id. */
async function signInAsAda(page: Page): Promise<{ token: () => string; org: string }> {
  const token = accessTokenOf(page);
  await page.goto(`${product.base}/members`);
  await signInAtProvider(page, provider.issuer, product.base, 'ada');
  await expect.poll(token).not.toBe('');
  const org = ((await (await apiAs(token(), '/api/orgs')).json()) as OrganizationListAnswer).organizations[0]!.id;
  return { token, org };
}

describe('Collections tab', () => {
  it('connects a token and an OAuth collection, says so once, and disconnects them', { timeout: 300_000 }, async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    try {
      const { token, org } = await signInAsAda(page);
      await page.getByRole('navigation', { name: 'Organization pages' }).getByRole('link', { name: 'Collections' }).click();
      await page.waitForURL(`${product.base}/members/${org}/collections`);
      await page.getByText("Tool collections your organization's agents may use. An agent is offered a collection only once your organization connects it.").waitFor();
      const crm = page.getByRole('article', { name: 'crm' });
      const office = page.getByRole('article', { name: 'office' });

      // Ada's personal organization is the deployment's only one (Bob has not signed in yet), so the deployment's
      // crm token serves it (core/collection/credentials.ts deploymentServes); an OAuth collection never uses it.
      await expect(crm.locator('.badge').textContent()).resolves.toBe("Uses the deployment's token");
      await expect(office.locator('.badge').textContent()).resolves.toBe('Not connected');
      await office.getByText('Signs in through the office app.').waitFor();
      await office.getByText(NOTE).waitFor();
      await office.getByText('Who signs in: Organization Administrators').waitFor();
      await expect(office.getByText('Also signs in for').count()).resolves.toBe(0);
      const about = office.getByRole('link', { name: 'About this app' });
      await expect(about.getAttribute('href')).resolves.toBe('https://office.example/app');
      await expect(about.getAttribute('target')).resolves.toBe('_blank');
      await expect(about.getAttribute('rel')).resolves.toBe('noopener');
      await expect(office.getByLabel('Token').count()).resolves.toBe(0);
      await expect(office.getByRole('button', { name: 'Disconnect office' }).count()).resolves.toBe(0);
      await expect(page.getByText('An Organization Administrator connects collections.').count()).resolves.toBe(0);
      await shoot(page, 'before');

      // A token of crm: a short one is refused with the API's message, a valid one connects (never shown back).
      const tokenField = crm.getByLabel('Token', { exact: true });
      await expect(tokenField.getAttribute('type')).resolves.toBe('password');
      await expect(tokenField.getAttribute('autocomplete')).resolves.toBe('off');
      await tokenField.fill('short');
      await crm.getByRole('button', { name: 'Save token' }).click();
      await crm.getByRole('alert').getByText('16–4096 characters without spaces').waitFor();
      await crm.getByRole('alert').getByText('invalid_token').waitFor();
      // The refused request's "Failed to load resource: 400" is the point of this step.
      problems.clear();
      await tokenField.fill(CRM_TOKEN);
      await crm.getByRole('button', { name: 'Save token' }).click();
      await crm.getByText('Token saved.').waitFor();
      await expect(crm.locator('.badge').textContent()).resolves.toBe('Connected');
      await crm.getByText(/^by Ada Lovelace on .+\.$/).waitFor();
      await expect(crm.getByRole('alert').count()).resolves.toBe(0);
      await expect(tokenField.inputValue()).resolves.toBe('');
      await crm.getByRole('button', { name: 'Replace token' }).waitFor();
      await crm.getByRole('button', { name: 'Disconnect crm' }).waitFor();
      expect(await page.content()).not.toContain(CRM_TOKEN);

      // Connect office: the provider's consent page, then back to the tab.
      await office.getByRole('button', { name: 'Connect office' }).click();
      await page.waitForURL(`${provider.issuer}/interaction/**`);
      if (await page.getByLabel('Login').count()) {
        await page.getByLabel('Login').fill('ada');
        await page.getByLabel('Password').fill('any password');
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      }
      await page.getByRole('heading', { name: 'Authorize office-app' }).waitFor();
      await expect(page.locator('#scopes').textContent()).resolves.toContain('openid');
      await screenshot(page, 'collections-consent');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL(`${product.base}/members/${org}/collections**`);
      await page.getByRole('status').getByText('Connected office.', { exact: true }).waitFor({ timeout: 30_000 });
      // The query is gone from the address once said; the notice stays.
      await expect.poll(() => page.url()).toBe(`${product.base}/members/${org}/collections`);
      await expect(office.locator('.badge').textContent()).resolves.toBe('Connected');
      await office.getByText(/^by Ada Lovelace on .+\.$/).waitFor();
      await office.getByRole('button', { name: 'Disconnect office' }).waitFor();
      await expect(office.getByRole('button', { name: /^(Connect|Reconnect) office$/ }).count()).resolves.toBe(0);
      await shoot(page, 'connected');

      // The API agrees; the provider issued the office app a token for Ada.
      const listed = await collectionsOf(token(), org);
      expect(listed.canManage).toBe(true);
      expect(listed.collections.find((c) => c.id === 'office')).toMatchObject({
        kind: 'oauth', offered: true, usesDeploymentToken: false, connection: { status: 'connected', connectedBy: 'Ada Lovelace' },
        app: { id: 'office', collections: ['office'], reach: { note: NOTE, url: 'https://office.example/app', signsIn: 'Organization Administrators' } },
      });
      expect(listed.collections.find((c) => c.id === 'crm')).toMatchObject({ kind: 'token', offered: true, connection: { status: 'connected' } });
      expect(JSON.stringify(listed)).not.toContain(CRM_TOKEN);
      expect(provider.issuedAppTokens()).toEqual([expect.objectContaining({ clientId: 'office-app', accountId: 'ada' })]);

      // An agent of Ada's organization calls office: the call carries the organization's access token (the service
      // says whose), and the session's page shows the tool call.
      const agent = await installAgentOverApi(product.base, token(), org, join(repoRoot, 'test/fixtures/agents/caller'), 'caller');
      const started = await fetch(`${product.base}/api/sessions`, {
        method: 'POST', headers: { authorization: `Bearer ${token()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent, environment: 'main', workflow: 'ask', message: 'Who am I?' }),
      });
      expect(started.status, await started.clone().text()).toBe(201);
      const sessionId = ((await started.json()) as { session: { id: string } }).session.id;
      await expect.poll(async () => ((await (await apiAs(token(), `/api/sessions/${sessionId}`)).json()) as { session: { status: string } }).session.status, { timeout: 60_000 }).toBe('awaiting_input');
      expect(svc.calls.map((c) => [c.name, c.who])).toEqual([['whoami', 'office-app:ada']]);
      await page.goto(`${product.base}/sessions/${sessionId}`);
      await page.getByText('office__whoami').first().waitFor();
      await page.getByText('You are Ada, through the office app.').waitFor();
      await screenshot(page, 'collections-tool-call', { fullPage: true });
      await page.goto(`${product.base}/members/${org}/collections`);

      // A reload does not say it again.
      await page.reload();
      await office.locator('.badge', { hasText: 'Connected' }).waitFor();
      await expect(page.getByText('Connected office.').count()).resolves.toBe(0);

      // Disconnect asks first: declined, nothing changes; accepted, office is revoked at the provider.
      const questions: string[] = [];
      page.once('dialog', (dialog) => { questions.push(dialog.message()); void dialog.dismiss(); });
      await office.getByRole('button', { name: 'Disconnect office' }).click();
      await expect.poll(() => questions.length).toBe(1);
      await expect(office.locator('.badge').textContent()).resolves.toBe('Connected');
      page.once('dialog', (dialog) => { questions.push(dialog.message()); void dialog.accept(); });
      await office.getByRole('button', { name: 'Disconnect office' }).click();
      await office.locator('.badge', { hasText: 'Not connected' }).waitFor();
      await office.getByRole('button', { name: 'Connect office' }).waitFor();
      expect(questions).toEqual(['Disconnect office? Its agents lose access at once.', 'Disconnect office? Its agents lose access at once.']);
      await product.run.waitForLine(new RegExp(`\\[credentials\\] disconnected collection office for organization ${org} by Ada Lovelace \\(revoked at the provider of app office\\)`), 10_000);

      // crm: back to the deployment's token (still the only organization).
      page.once('dialog', (dialog) => void dialog.accept());
      await crm.getByRole('button', { name: 'Disconnect crm' }).click();
      await crm.locator('.badge', { hasText: "Uses the deployment's token" }).waitFor();
      await crm.getByRole('button', { name: 'Save token' }).waitFor();
      await product.run.waitForLine(new RegExp(`\\[credentials\\] disconnected collection crm for organization ${org} by Ada Lovelace \\(token removed\\)`), 10_000);
      expect(product.run.lines.join('\n')).not.toContain(CRM_TOKEN);

      // Bob's first sign-in makes a second organization: the deployment's token serves no one (the API counts the
      // organizations at most every 10 s). Bob sees nothing of Ada's organization.
      const bob = await provider.clientCredentialsToken('bob');
      expect((await apiAs(bob, '/api/me')).status).toBe(200);
      expect((await apiAs(bob, `/api/orgs/${org}/collections`)).status).toBe(404);
      await expect.poll(async () => (await collectionsOf(token(), org)).collections.find((c) => c.id === 'crm')?.usesDeploymentToken,
        { timeout: 20_000, interval: 1_000 }).toBe(false);
      await page.reload();
      await crm.locator('.badge', { hasText: 'Not connected' }).waitFor();
      await expect(office.locator('.badge').textContent()).resolves.toBe('Not connected');
      await shoot(page, 'two-organizations');

      // A callback whose state is unknown cannot name the organization: /members passes the error on to the tab.
      await page.goto(`${product.base}/api/oauth2/callback?state=never-issued&code=whatever`);
      await page.waitForURL(`${product.base}/members/${org}/collections**`);
      const failure = page.getByRole('alert').filter({ hasText: 'The collection was not connected' });
      await failure.getByText('That sign-in expired, was already used or was started by someone else; connect again.').waitFor({ timeout: 30_000 });
      await failure.getByText('oauth_connect_unknown').waitFor();
      await expect.poll(() => page.url()).toBe(`${product.base}/members/${org}/collections`);
      await shoot(page, 'connect-error');
      expect(problems.all()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  // States this deployment does not reach on its own (a member without organization:manage, a connection asked to
  // reconnect, Connect refused by the API): the real list answer, changed on its way to the page.
  it('is read-only without organization:manage, offers Reconnect when asked, and shows a refused Connect', { timeout: 120_000 }, async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    try {
      const { token, org } = await signInAsAda(page);
      let change: (answer: { collections: CollectionView[]; canManage: boolean }) => unknown = (answer) => answer;
      await page.route(`${product.base}/api/orgs/${org}/collections`, async (route) => {
        const response = await route.fetch();
        await route.fulfill({ response, json: change(await response.json()) });
      });
      const crm = page.getByRole('article', { name: 'crm' });
      const office = page.getByRole('article', { name: 'office' });

      change = (answer) => ({ ...answer, canManage: false });
      await page.goto(`${product.base}/members/${org}/collections`);
      await page.getByText('An Organization Administrator connects collections.').waitFor();
      await office.getByText(NOTE).waitFor();
      await expect(page.getByRole('button').filter({ hasText: /Connect|Disconnect|token/ }).count()).resolves.toBe(0);
      await expect(page.getByLabel('Token').count()).resolves.toBe(0);
      await shoot(page, 'read-only');

      const reason = "The office app's client id changed; connect again to sign in through the new one.";
      change = (answer) => ({
        ...answer,
        collections: answer.collections.map((c) => c.id === 'office'
          ? { ...c, offered: false, connection: { status: 'reconnect', reconnectReason: reason, connectedAt: new Date().toISOString(), connectedBy: 'Ada Lovelace' } }
          : c),
      });
      await page.reload();
      await office.locator('.badge', { hasText: 'Reconnect needed' }).waitFor();
      await office.getByText(reason, { exact: false }).waitFor();
      await office.getByRole('button', { name: 'Reconnect office' }).waitFor();
      await office.getByRole('button', { name: 'Disconnect office' }).waitFor();
      await expect(page.getByText('An Organization Administrator connects collections.').count()).resolves.toBe(0);

      // Connect refused (as without OAUTH2_REDIRECT_URL): the API's message, and the page stays.
      const message = 'Connecting needs OAUTH2_REDIRECT_URL (https://<host>/api/oauth2/callback, registered on the app); ask the operator to set it and restart.';
      await page.route(`${product.base}/api/orgs/${org}/collections/office/connect`, (route) =>
        route.fulfill({ status: 503, json: { error: { code: 'oauth_redirect_unset', message } } }));
      await office.getByRole('button', { name: 'Reconnect office' }).click();
      const refused = office.getByRole('alert');
      await refused.getByText(message).waitFor();
      await refused.getByText('oauth_redirect_unset').waitFor();
      expect(page.url()).toBe(`${product.base}/members/${org}/collections`);
      await shoot(page, 'reconnect-refused');
      await expect(crm.locator('.badge').textContent()).resolves.toBe('Not connected');
      // Only the refused Connect's "Failed to load resource: 503" was logged.
      expect(problems.all()).toEqual([expect.stringContaining('503')]);
    } finally {
      await context.close();
    }
  });
});
