/**
 * Signing in to the web app in a real browser (Debian's Chromium through playwright-core) against the product
 * as `scripts/start` starts it: dev-user opens on Chat and shows the projects list with no console errors or CSP violations,
 * under the branding of the config (title, page title, primary colour, powered-by note); under cloud-alb a
 * 401 reloads once, then shows "Sign-in failed";
 * an unreachable /api/sign-in-settings shows "cairn cannot be reached" and Try again signs in once it answers;
 * oidc against the local OpenID provider (over https, as the CSP requires): the provider's login page, back in
 * the app as that person, no token in localStorage or sessionStorage, Sign out through the provider's
 * end-session back to the sign-in page; restored after a reload from the hidden frame without the login page
 * in a browser that sends third-party cookies, and what a reload does where they are blocked (Debian's
 * Chromium default: the app on http and the provider on https are different sites); an unverified address
 * sees "Verify your email address", a waitlist refusal "You are on the waitlist".
 * Screenshots land in test-results/web/.
 *
 * Source: docs/decisions.md D9 (browser tests); spec/platform-service.md § Platform sign-in modes, § Rules 3, 4, 6,
 * § Front proxy routes (CSP).
 */
import { decodeJwt } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newTestPage, newThirdPartyCookiesPage, screenshot, screenshotBoth, signInAtProvider, startWebApp, type StartedWebApp } from '../helpers/browser.ts';
import { oidcSignInEnv, startOidcProvider, type RunningOidcProvider } from '../helpers/oidc-provider.ts';
import { freePort } from '../helpers/ports.ts';

let browser: Browser;
beforeAll(async () => { browser = await launchBrowser({ ignoreCertificateErrors: true }); });
afterAll(async () => { await browser?.close(); });

describe('dev-user', () => {
  let product: StartedWebApp;
  // A config of its own with a branding section (it wins whole over the one scripts/start would pass).
  const branding = { title: 'Acme Analytics', colours: { primary: '#6b2d8a' } };
  beforeAll(async () => { product = await startWebApp({ PLATFORM_SIGN_IN: 'dev-user', PLATFORM_CONFIG: JSON.stringify({ branding }) }); }, 450_000);
  afterAll(async () => {
    await product?.stop();
  });

  it('opens on Chat, and shows the projects list, with no console errors or CSP violations (1280 and 375 px)', async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    await page.goto(product.base);
    await expect.poll(() => page.url()).toBe(`${product.base}/chat`);
    await page.getByRole('heading', { name: 'Chat', exact: true, level: 1 }).waitFor();
    await page.goto(`${product.base}/projects`);
    await page.getByRole('heading', { name: 'Semantic projects' }).waitFor();
    await page.getByRole('link', { name: 'flights', exact: false }).first().waitFor();
    await expect(page.getByText('dev user', { exact: true }).count()).resolves.toBe(1);
    await screenshotBoth(page, 'sign-in-dev-user-projects');
    expect(problems.all()).toEqual([]);
    await context.close();
  });

  it('wears the branding of GET /api/branding: title in the header and the page title, its primary colour, and the powered-by note', async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    await page.goto(`${product.base}/projects`);
    await page.getByRole('link', { name: 'Acme Analytics' }).waitFor();
    await expect.poll(() => page.title()).toBe('Acme Analytics');
    await expect(page.getByText('Powered by cairn').count()).resolves.toBe(1);
    const createColour = await page.getByRole('button', { name: 'Create project' }).evaluate((button) => getComputedStyle(button).backgroundColor);
    expect(createColour).toBe('rgb(107, 45, 138)');
    await screenshot(page, 'sign-in-branding-1280');
    expect(problems.all()).toEqual([]);
    await context.close();
  });

  it('cloud-alb (the web app holds no token): a 401 reloads the page once, then shows "Sign-in failed"; Try again signs in once the load balancer lets the person through', async () => {
    // The deployment's answers are replaced in the browser: the API says cloud-alb, and the load balancer's
    // session is gone (401 on /api/me) until the route is lifted. What is tested is the web app's handling.
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    await page.route('**/api/sign-in-settings', (route) => route.fulfill({ json: { mode: 'cloud-alb', signOutUrl: `${product.base}/signed-out` } }));
    await page.route('**/api/me', (route) => route.fulfill({ status: 401, json: { error: { code: 'unauthorized', message: 'Sign in first.' } } }));
    let documentLoads = 0;
    page.on('framenavigated', (frame) => { if (frame === page.mainFrame()) documentLoads += 1; });
    await page.goto(`${product.base}/projects`);
    await page.getByRole('heading', { name: 'Sign-in failed' }).waitFor();
    expect(documentLoads).toBe(2);
    await screenshot(page, 'sign-in-cloud-alb-failed-1280');
    expect(problems.cspViolations).toEqual([]);
    problems.clear();
    await page.unroute('**/api/me');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('heading', { name: 'Chat', exact: true, level: 1 }).waitFor();
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual([]);
    expect(problems.cspViolations).toEqual([]);
    await context.close();
  });

  it('shows "cairn cannot be reached" while /api/sign-in-settings fails, and Try again signs in once it answers', async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    await page.route('**/api/sign-in-settings', (route) => route.abort('connectionrefused'));
    await page.goto(`${product.base}/projects`);
    await page.getByRole('heading', { name: 'cairn cannot be reached' }).waitFor();
    await page.getByText('Acme Analytics').first().waitFor();
    await screenshotBoth(page, 'sign-in-unreachable');
    // The aborted request itself is the one console error this step provokes.
    expect(problems.cspViolations).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    problems.clear();
    await page.unroute('**/api/sign-in-settings');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('heading', { name: 'Semantic projects' }).waitFor();
    expect(problems.all()).toEqual([]);
    await context.close();
  });
});

describe('oidc against the local OpenID provider (https)', () => {
  let provider: RunningOidcProvider;
  let product: StartedWebApp;
  /** Sign out in the app, confirm at the provider's end-session page, and check a reload ends on the sign-in page. */
  async function signOutThroughProvider(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${provider.issuer}/session/end**`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
  }

  beforeAll(async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    provider = await startOidcProvider([], 'https://api.cairn.test', {
      https: true,
      webClient: { origins: [origin] },
      people: [
        { login: 'ada', email: 'ada@example.com', name: 'Ada Lovelace' },
        { login: 'una', email: 'una@example.com', emailVerified: false, name: 'Una Verified' },
      ],
    });
    // The API fetches discovery and JWKS from the provider: Bun trusts its certificate through NODE_EXTRA_CA_CERTS.
    product = await startWebApp({ ...oidcSignInEnv(provider), NODE_EXTRA_CA_CERTS: provider.certificateFile! }, port);
  }, 450_000);
  afterAll(async () => {
    await product?.stop();
    await provider?.stop();
  });

  /** Signs in at the provider's login page as `login`, from the app's sign-in page. */
  async function signInAs(page: Page, login: string): Promise<void> {
    await page.goto(`${product.base}/projects`);
    await signInAtProvider(page, provider.issuer, product.base, login);
  }

  /** Collects the tokens the provider's token endpoint hands the page (to look for them in storage); `answers` keeps the bodies. */
  function tokensSeenBy(page: Page, answers: { access_token?: string; id_token?: string }[] = []): string[] {
    const tokens: string[] = [];
    page.on('response', async (response) => {
      if (response.url() !== `${provider.issuer}/token` || !response.ok()) return;
      const body = (await response.json()) as { access_token?: string; id_token?: string; refresh_token?: string };
      answers.push(body);
      tokens.push(...[body.access_token, body.id_token, body.refresh_token].filter((t): t is string => !!t));
    });
    return tokens;
  }

  /** Reloads and answers which main-frame addresses were shown and which hidden-frame callbacks were loaded. */
  async function reload(page: Page): Promise<{ mainFrame: string[]; silentCallbacks: string[] }> {
    const seen = { mainFrame: [] as string[], silentCallbacks: [] as string[] };
    page.on('framenavigated', (frame) => { if (frame === page.mainFrame()) seen.mainFrame.push(frame.url()); });
    page.on('request', (request) => { if (request.url().startsWith(`${product.base}/silent-callback.html`)) seen.silentCallbacks.push(request.url()); });
    await page.reload();
    return seen;
  }

  it('signs in at the provider as that person, keeps tokens in memory only, and signs out through the provider\'s end-session', async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    const answers: { access_token?: string; id_token?: string }[] = [];
    const tokens = tokensSeenBy(page, answers);
    await page.goto(product.base);
    await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
    await screenshotBoth(page, 'sign-in-oidc-sign-in-page');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${provider.issuer}/interaction/**`);
    await screenshot(page, 'sign-in-oidc-provider-login-1280');
    await page.getByLabel('Login').fill('ada');
    await page.getByLabel('Password').fill('any password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();

    await page.waitForURL(`${product.base}/chat`);
    await page.getByRole('heading', { name: 'Chat', exact: true, level: 1 }).waitFor();
    await expect(page.locator('.who-name').textContent()).resolves.toBe('Ada Lovelace');
    expect(page.url()).not.toContain('code=');
    await screenshotBoth(page, 'sign-in-oidc-signed-in');

    // The provider's tokens: the ID token and the JWT access token for the audience carry the person's email claims.
    const [idClaims, accessClaims] = [decodeJwt(answers[0]!.id_token!), decodeJwt(answers[0]!.access_token!)];
    expect(idClaims).toMatchObject({ sub: 'ada', email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace', aud: 'cairn-web' });
    expect(accessClaims).toMatchObject({ sub: 'ada', email: 'ada@example.com', email_verified: true, aud: provider.defaultResource });

    // Tokens in memory only: none of them, and no oidc-client-ts user record, in either storage.
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    const stored = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } }));
    for (const token of tokens) expect(stored).not.toContain(token);
    expect(stored).not.toMatch(/access_token|id_token|refresh_token|oidc\.user/);
    expect(problems.all()).toEqual([]);

    // Sign out: the provider's end-session page, then back to the app's sign-in page.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${provider.issuer}/session/end**`);
    await screenshot(page, 'sign-in-oidc-provider-end-session-1280');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${product.base}/**`);
    await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
    await screenshot(page, 'sign-in-oidc-signed-out-1280');
    expect(problems.all()).toEqual([]);
    await context.close();
  });

  it('restores the session after a reload from the hidden frame, without the login page (browser allowing third-party cookies), and not after signing out', async () => {
    const { page, problems, close } = await newThirdPartyCookiesPage({ origin: product.base, ignoreCertificateErrors: true });
    try {
      await signInAs(page, 'ada');
      await expect(page.locator('.who-name').textContent()).resolves.toBe('Ada Lovelace');
      const tokens = tokensSeenBy(page);
      const seen = await reload(page);
      await page.getByRole('heading', { name: 'Semantic projects' }).waitFor();
      await expect(page.locator('.who-name').textContent()).resolves.toBe('Ada Lovelace');
      expect(seen.mainFrame.filter((u) => u.startsWith(provider.issuer))).toEqual([]);
      expect(seen.silentCallbacks.length).toBeGreaterThan(0);
      expect(tokens.length).toBeGreaterThan(0); // new tokens came through the hidden frame
      const stored = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } }));
      for (const token of tokens) expect(stored).not.toContain(token);
      await screenshot(page, 'sign-in-oidc-restored-after-reload-1280');
      expect(problems.all()).toEqual([]);

      // Signed out at the provider too: a reload now ends on the sign-in page.
      await signOutThroughProvider(page);
      expect(problems.all()).toEqual([]);
    } finally {
      await close();
    }
  });

  it('with third-party cookies blocked (Chromium\'s default here), the hidden frame gets no provider session and the tab restores at the top level with prompt=none, without the login page', async () => {
    // The app (http://127.0.0.1:<port>) and the provider (https://127.0.0.1:<port>) are different sites
    // (schemeful same-site), so the frame's request to the provider is third-party: Chromium sends no
    // cookie (Sec-Fetch-Storage-Access: none) and the provider answers login_required.
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    await signInAs(page, 'ada');
    await expect(page.locator('.who-name').textContent()).resolves.toBe('Ada Lovelace');
    const frameRequests: { cookie?: string; storageAccess?: string }[] = [];
    page.on('request', async (request) => {
      if (!request.url().startsWith(`${provider.issuer}/auth?`) || request.frame() === page.mainFrame()) return;
      const headers = await request.allHeaders();
      frameRequests.push({ cookie: headers.cookie, storageAccess: headers['sec-fetch-storage-access'] });
    });
    const seen = await reload(page);
    await page.getByRole('heading', { name: 'Semantic projects' }).waitFor();
    await expect(page.locator('.who-name').textContent()).resolves.toBe('Ada Lovelace');
    expect(frameRequests).toEqual([{ cookie: undefined, storageAccess: 'none' }]);
    expect(seen.mainFrame.filter((u) => u.startsWith(`${provider.issuer}/interaction`))).toEqual([]);
    const stored = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } }));
    expect(stored).not.toMatch(/access_token|id_token|refresh_token|oidc\.user/);
    expect(problems.all()).toEqual([]);
    // Signed out (the tab's marker cleared, the provider's session ended): a reload ends on the sign-in page.
    await signOutThroughProvider(page);
    expect(problems.all()).toEqual([]);
    await context.close();
  });

  it('a person whose email address is not verified sees "Verify your email address"', async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    await signInAs(page, 'una');
    await page.getByRole('heading', { name: 'Verify your email address' }).waitFor();
    await screenshotBoth(page, 'sign-in-oidc-verify-email');
    // The 403 of GET /api/me is the one console error this step provokes (Chromium logs failed fetches).
    expect(problems.cspViolations).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    await context.close();
  });

  it('a provider refusal naming on_waitlist shows "You are on the waitlist"', async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    await page.goto(`${product.base}/?error=access_denied&error_description=on_waitlist`);
    await page.getByRole('heading', { name: 'You are on the waitlist' }).waitFor();
    expect(page.url()).not.toContain('error=');
    await screenshotBoth(page, 'sign-in-oidc-waitlist');
    expect(problems.all()).toEqual([]);
    await context.close();
  });
});
